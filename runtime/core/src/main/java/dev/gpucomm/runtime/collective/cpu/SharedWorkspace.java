package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.device.cpu.CpuPeerBuffer;
import dev.gpucomm.runtime.device.cpu.CpuSharedBuffer;
import java.lang.foreign.MemorySegment;

/**
 * The shared buffers of a communicator as seen by one rank: its own (signal area + staging area)
 * and every peer's, mapped once at creation and indexed by rank, so that algorithms address any
 * rank's memory without allocating.
 */
final class SharedWorkspace implements AutoCloseable {
  private final CpuSharedBuffer own;
  private final CpuPeerBuffer[] peers;
  private final MemorySegment[] signals;
  private final MemorySegment[] staging;

  SharedWorkspace(
      int rank,
      CpuSharedBuffer own,
      CpuPeerBuffer[] peers,
      SignalLayout layout,
      long stagingBytes) {
    this.own = own;
    this.peers = peers.clone();
    int worldSize = peers.length;
    this.signals = new MemorySegment[worldSize];
    this.staging = new MemorySegment[worldSize];
    long signalBytes = layout.signalBytes();
    for (int peer = 0; peer < worldSize; peer++) {
      MemorySegment whole = peer == rank ? own.segment() : peers[peer].segment();
      signals[peer] = whole.asSlice(0, signalBytes);
      staging[peer] = whole.asSlice(signalBytes, stagingBytes);
    }
  }

  /** The signal area of {@code rank}. */
  MemorySegment signals(int rank) {
    return signals[rank];
  }

  /** The staging area of {@code rank}. */
  MemorySegment staging(int rank) {
    return staging[rank];
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (int peer = peers.length - 1; peer >= 0; peer--) {
      if (peers[peer] != null) {
        try {
          peers[peer].close();
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
    }
    own.close();
    if (failure != null) {
      throw failure;
    }
  }
}
