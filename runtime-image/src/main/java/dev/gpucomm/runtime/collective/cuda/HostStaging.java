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
 * The pinned host memory of the one-shot's host path on two ranks of a node, which run in separate
 * processes: each rank creates a file in a memory-backed folder ({@code /dev/shm}, which the ranks
 * of a pod share), maps it and registers it with CUDA; it stages its host share there, and the peer
 * maps and registers the same file to copy the share on into its GPU. Once both have mapped both
 * files, each rank deletes its own (the mappings stay), so nothing is left behind when a process
 * dies.
 *
 * <p>The ranks agree through the store: both use the host path, or neither does.
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
  private final MemorySegment own;
  private final MemorySegment peer;

  private HostStaging(Arena arena, Registrar registrar, MemorySegment own, MemorySegment peer) {
    this.arena = arena;
    this.registrar = registrar;
    this.own = own;
    this.peer = peer;
  }

  /**
   * Creates both ranks' staging together (every rank of the pair calls this).
   *
   * @throws HostPathUnavailable with the reason, on both ranks, when either cannot set it up
   */
  static HostStaging create(
      Path folder,
      long bytes,
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      int peerRank,
      Duration timeout,
      Registrar registrar) {
    // A page of hand-off words, then the staged bytes.
    long size = PAGE + (Math.max(bytes, 1) + PAGE - 1) / PAGE * PAGE;
    Arena arena = Arena.ofShared();
    Path ownPath = folder.resolve("gpucomm-host-" + UUID.randomUUID() + "-" + localRank);
    MemorySegment own = null;
    MemorySegment peer = null;
    boolean ownRegistered = false;
    boolean peerRegistered = false;
    try {
      String ownOutcome;
      try {
        own = map(ownPath, size, arena, true);
        registrar.register(own.address(), size);
        ownRegistered = true;
        ownOutcome = OK + ownPath;
      } catch (RuntimeException | IOException e) {
        ownOutcome = FAILED + "rank " + localRank + ": " + describe(e);
      }
      String peerOutcome =
          exchange(store, keyPrefix + "/file", localRank, peerRank, ownOutcome, timeout);
      if (!ownOutcome.startsWith(OK) || !peerOutcome.startsWith(OK)) {
        throw new HostPathUnavailable(failure(localRank, ownOutcome, peerRank, peerOutcome));
      }
      String mappedOutcome;
      try {
        peer = map(Path.of(peerOutcome.substring(OK.length())), size, arena, false);
        registrar.register(peer.address(), size);
        peerRegistered = true;
        mappedOutcome = OK;
      } catch (RuntimeException | IOException e) {
        mappedOutcome = FAILED + "rank " + localRank + ": " + describe(e);
      }
      String peerMapped =
          exchange(store, keyPrefix + "/mapped", localRank, peerRank, mappedOutcome, timeout);
      if (!mappedOutcome.startsWith(OK) || !peerMapped.startsWith(OK)) {
        throw new HostPathUnavailable(failure(localRank, mappedOutcome, peerRank, peerMapped));
      }
      Files.deleteIfExists(ownPath);
      return new HostStaging(arena, registrar, own, peer);
    } catch (IOException | RuntimeException e) {
      if (peerRegistered) {
        registrar.unregister(peer.address());
      }
      if (ownRegistered) {
        registrar.unregister(own.address());
      }
      arena.close();
      try {
        Files.deleteIfExists(ownPath);
      } catch (IOException ignored) {
        // Best effort: the folder is memory-backed and cleared with the pod.
      }
      if (e instanceof HostPathUnavailable unavailable) {
        throw unavailable;
      }
      throw new HostPathUnavailable("host staging in " + folder + ": " + describe(e));
    }
  }

  /** Where this rank stages its share (host address, registered). */
  long ownAddress() {
    return own.address() + PAGE;
  }

  /** Where the peer stages its share, mapped and registered in this process. */
  long peerAddress() {
    return peer.address() + PAGE;
  }

  /**
   * This rank's hand-off words (zero at the start): word k says that chunk k is staged; this rank's
   * copy stream sets it, the peer's clears it.
   */
  long ownWordsAddress() {
    return own.address();
  }

  /** The peer's hand-off words, as mapped in this process. */
  long peerWordsAddress() {
    return peer.address();
  }

  long bytes() {
    return own.byteSize() - PAGE;
  }

  @Override
  public void close() {
    registrar.unregister(peer.address());
    registrar.unregister(own.address());
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

  private static String exchange(
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      int peerRank,
      String outcome,
      Duration timeout) {
    store.set(keyPrefix + "/" + localRank, outcome.getBytes(StandardCharsets.UTF_8));
    return new String(store.get(keyPrefix + "/" + peerRank, timeout), StandardCharsets.UTF_8);
  }

  /** The failure both ranks report: the lower rank's when both failed. */
  private static String failure(int localRank, String own, int peerRank, String peer) {
    boolean ownFailed = own.startsWith(FAILED);
    boolean peerFailed = peer.startsWith(FAILED);
    String first = ownFailed && (!peerFailed || localRank < peerRank) ? own : peer;
    return "host staging failed, " + first.substring(FAILED.length());
  }

  private static String describe(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /** Why the host path is off; both ranks of the pair get it. */
  static final class HostPathUnavailable extends RuntimeException {
    HostPathUnavailable(String reason) {
      super(reason);
    }
  }
}
