package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.UUID;

/**
 * The pinned host memory of the host path on the ranks of a node, which run in separate processes:
 * each rank creates a file in a memory-backed folder ({@code /dev/shm}, which the ranks of a pod
 * share), maps it and registers it with CUDA; it stages the bytes it sends there, and every peer
 * maps and registers the same file to copy them on into its GPU. Once every rank has mapped every
 * file, each rank deletes its own (the mappings stay), so nothing is left behind when a process
 * dies.
 *
 * <p>The files hold bytes only: the hand-off words live in the ranks' peer memory ({@link
 * PeerMemoryLayout#hostStagedOffset}).
 *
 * <p>The ranks agree through the store: all of them use the host path, or none does.
 */
final class HostStaging implements AutoCloseable {
  /** Page-locks host memory for CUDA; undone at close. */
  interface Registrar {
    void register(long address, long bytes);

    void unregister(long address);
  }

  private static final String OK = "ok:";
  private static final String FAILED = "failed:";
  private static final long PAGE = 4096;

  private final Arena arena;
  private final Registrar registrar;
  private final int localRank;
  private final MemorySegment[] files;

  private HostStaging(Arena arena, Registrar registrar, int localRank, MemorySegment[] files) {
    this.arena = arena;
    this.registrar = registrar;
    this.localRank = localRank;
    this.files = files;
  }

  /**
   * Creates the staging of all {@code world} ranks of the node together (every rank calls this).
   *
   * @throws HostPathUnavailable with the reason, on every rank, when any cannot set it up
   */
  static HostStaging create(
      Path folder,
      long bytes,
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      int world,
      Duration timeout,
      Registrar registrar) {
    long size = (Math.max(bytes, 1) + PAGE - 1) / PAGE * PAGE;
    Arena arena = Arena.ofShared();
    // named as the CPU backend's shared-memory files are (gpucomm-<name>-l<rank>-p<pid>-<n>): a
    // rank killed before its peers mapped the file leaves it behind, and the launcher that started
    // the rank removes what its process id left
    Path ownPath =
        folder.resolve(
            "gpucomm-host-"
                + UUID.randomUUID()
                + "-l"
                + localRank
                + "-p"
                + ProcessHandle.current().pid()
                + "-0");
    MemorySegment[] files = new MemorySegment[world];
    boolean[] registered = new boolean[world];
    try {
      String ownOutcome;
      try {
        files[localRank] = map(ownPath, size, arena, true);
        registrar.register(files[localRank].address(), size);
        registered[localRank] = true;
        ownOutcome = OK + ownPath;
      } catch (RuntimeException | IOException e) {
        ownOutcome = FAILED + "rank " + localRank + ": " + describe(e);
      }
      String[] created =
          exchange(store, keyPrefix + "/file", localRank, world, ownOutcome, timeout);
      requireAllOk(created);
      String mappedOutcome = OK;
      try {
        for (int peer = 0; peer < world; peer++) {
          if (peer != localRank) {
            files[peer] = map(Path.of(created[peer].substring(OK.length())), size, arena, false);
            registrar.register(files[peer].address(), size);
            registered[peer] = true;
          }
        }
      } catch (RuntimeException | IOException e) {
        mappedOutcome = FAILED + "rank " + localRank + ": " + describe(e);
      }
      requireAllOk(
          exchange(store, keyPrefix + "/mapped", localRank, world, mappedOutcome, timeout));
      Files.deleteIfExists(ownPath);
      return new HostStaging(arena, registrar, localRank, files);
    } catch (IOException | RuntimeException e) {
      for (int rank = world - 1; rank >= 0; rank--) {
        if (registered[rank]) {
          registrar.unregister(files[rank].address());
        }
      }
      arena.close();
      try {
        Files.deleteIfExists(ownPath);
      } catch (IOException ignored) {
        // Best effort: the launcher removes it by this process's id once the rank is gone.
      }
      if (e instanceof HostPathUnavailable unavailable) {
        throw unavailable;
      }
      throw new HostPathUnavailable("host staging in " + folder + ": " + describe(e));
    }
  }

  /** Where {@code rank} stages what it sends (host address, registered in this process). */
  long stagingAddress(int rank) {
    return files[rank].address();
  }

  /** The ranks whose staging this one has mapped, itself included. */
  int world() {
    return files.length;
  }

  int localRank() {
    return localRank;
  }

  long bytes() {
    return files[localRank].byteSize();
  }

  @Override
  public void close() {
    for (int rank = files.length - 1; rank >= 0; rank--) {
      registrar.unregister(files[rank].address());
    }
    arena.close();
  }

  private static MemorySegment map(Path path, long size, Arena arena, boolean create)
      throws IOException {
    if (create) {
      try (FileChannel channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE)) {
        channel.truncate(size);
        channel.position(size - 1).write(ByteBuffer.wrap(new byte[1]));
        return channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
      }
    }
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      if (channel.size() < size) {
        throw new IOException(path + " holds " + channel.size() + " bytes, expected " + size);
      }
      return channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
    }
  }

  /** Publishes this rank's outcome and returns every rank's, by rank. */
  private static String[] exchange(
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      int world,
      String outcome,
      Duration timeout) {
    store.set(keyPrefix + "/" + localRank, outcome.getBytes(StandardCharsets.UTF_8));
    String[] outcomes = new String[world];
    for (int rank = 0; rank < world; rank++) {
      outcomes[rank] =
          rank == localRank
              ? outcome
              : new String(store.get(keyPrefix + "/" + rank, timeout), StandardCharsets.UTF_8);
    }
    return outcomes;
  }

  /** Throws the lowest failing rank's reason, the same on every rank. */
  private static void requireAllOk(String[] outcomes) {
    for (String outcome : outcomes) {
      if (outcome.startsWith(FAILED)) {
        throw new HostPathUnavailable("host staging failed, " + outcome.substring(FAILED.length()));
      }
    }
  }

  private static String describe(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /** Why the host path is off; every rank of the node gets it. */
  static final class HostPathUnavailable extends RuntimeException {
    HostPathUnavailable(String reason) {
      super(reason);
    }
  }
}
