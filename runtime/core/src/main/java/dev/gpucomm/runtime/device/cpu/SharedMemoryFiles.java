package dev.gpucomm.runtime.device.cpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Creates, names and maps the shared-memory files behind shareable buffers: the CPU analog of CUDA
 * IPC, where the handle is the file's path.
 *
 * <p>Names read {@code gpucomm-<job>-l<localRank>-p<pid>-<sequence>}: the job and process keep
 * concurrent jobs and ranks apart, the sequence keeps apart the buffers of one process (and of
 * ranks that run as threads of one JVM in tests).
 */
final class SharedMemoryFiles {
  static final String PREFIX = "gpucomm-";
  private static final int RESERVE_CHUNK = 1 << 20;
  private static final AtomicLong SEQUENCE = new AtomicLong();

  private final Path directory;
  private final String namePrefix;

  SharedMemoryFiles(Path directory, String jobName, int localRank) {
    this.directory = directory.toAbsolutePath();
    this.namePrefix =
        PREFIX + jobName + "-l" + localRank + "-p" + ProcessHandle.current().pid() + "-";
  }

  /**
   * A new file of {@code bytes} zero bytes, mapped read-write into {@code arena}. The zeros are
   * written, not just promised by growing the file: on a memory filesystem that runs out (a pod's
   * /dev/shm is 64 MiB unless the job sizes it), touching a page of a sparse mapping kills the
   * process with SIGBUS, whereas a write fails here with a message that says what to change.
   */
  MappedFile create(long bytes, Arena arena) {
    while (true) {
      Path path = directory.resolve(namePrefix + SEQUENCE.incrementAndGet());
      try (FileChannel channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE)) {
        try {
          reserve(channel, path, bytes);
          return new MappedFile(
              path, asNative(channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena), arena));
        } catch (IOException | RuntimeException e) {
          Files.deleteIfExists(path);
          throw e;
        }
      } catch (FileAlreadyExistsException stale) {
        // A file left by a process that reused our pid: take the next sequence number.
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot create a shared-memory file of " + bytes + " bytes at " + path, e);
      }
    }
  }

  private void reserve(FileChannel channel, Path path, long bytes) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(bytes, RESERVE_CHUNK));
    long position = 0;
    try {
      while (position < bytes) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - position));
        position += channel.write(zeros, position);
      }
    } catch (IOException e) {
      throw new IOException(
          "cannot reserve %d bytes of shared memory in %s (%d bytes written, %s usable): give the job more shared memory (sharedMemorySize) or the communicator a smaller staging buffer"
              .formatted(bytes, directory, position, usableSpace()),
          e);
    }
  }

  private String usableSpace() {
    try {
      return Long.toString(Files.getFileStore(directory).getUsableSpace());
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** Maps the whole file a peer created and named in its handle. */
  static MappedFile open(byte[] handleBytes, Arena arena) {
    Path path = pathOf(handleBytes);
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      return new MappedFile(
          path,
          asNative(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena), arena));
    } catch (NoSuchFileException e) {
      throw new IllegalStateException(
          "the peer's shared-memory file "
              + path
              + " does not exist: the peer closed it, or the ranks do not share "
              + path.getParent(),
          e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map the peer's shared-memory file " + path, e);
    }
  }

  /**
   * The same mapping as a plain native segment, unmapped when {@code arena} closes. The
   * collectives' element loops read staging areas and device buffers alike; given segments of two
   * classes (a mapped one and a native one) the JIT compiles those loops for the first class it saw
   * and falls back to slow generic access for the other, which makes every call of the other many
   * times slower for the rest of the run.
   */
  private static MemorySegment asNative(MemorySegment mapped, Arena arena) {
    return MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null);
  }

  static byte[] handleBytesOf(Path path) {
    return path.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The file a handle names; refuses anything that is not an absolute path to a gpucomm file. */
  static Path pathOf(byte[] handleBytes) {
    String text = new String(handleBytes, StandardCharsets.UTF_8);
    Path path = Path.of(text);
    if (!path.isAbsolute()
        || path.getFileName() == null
        || !path.getFileName().toString().startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "not a cpu-backend IPC handle (expected the absolute path of a "
              + PREFIX
              + "* shared-memory file): '"
              + text
              + "'");
    }
    return path;
  }

  /** A mapped file and its path. */
  record MappedFile(Path path, MemorySegment memory) {}
}
