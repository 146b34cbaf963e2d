package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.lang.foreign.MemorySegment;

/**
 * Point-to-point channels between any two ranks, the transport of the ring and of send/receive.
 *
 * <p>A sender writes a message into one of {@link CpuBackendConfig#CHANNEL_SLOTS} slots at the
 * start of its own staging area and publishes it by raising the head count that it keeps in the
 * receiver's signal area; the receiver copies the message out of the sender's slot and gives the
 * slot back by raising the tail count it keeps in the sender's signal area. Both sides poll only
 * their own area. Counts only grow, per pair of ranks, across calls and graph replays.
 *
 * <p>One staging area serves every destination, so an operation must {@link #drain} its channel
 * before it returns: afterwards the staging area is free for the next collective.
 */
final class PeerChannels {
  private static final int SLOTS = CpuBackendConfig.CHANNEL_SLOTS;

  private final int rank;
  private final int slotBytes;
  private final SharedWorkspace workspace;
  private final SignalLayout layout;
  private final FlagWait wait;
  private final int[] sent;
  private final int[] received;

  PeerChannels(
      int rank,
      int worldSize,
      int slotBytes,
      SharedWorkspace workspace,
      SignalLayout layout,
      FlagWait wait) {
    this.rank = rank;
    this.slotBytes = slotBytes;
    this.workspace = workspace;
    this.layout = layout;
    this.wait = wait;
    this.sent = new int[worldSize];
    this.received = new int[worldSize];
  }

  int slotBytes() {
    return slotBytes;
  }

  /** Waits for a free slot of the channel to {@code to}; returns its offset in own staging. */
  long acquireSendSlot(int to, String operation) {
    int message = sent[to];
    long tail = layout.offset(SignalLayout.CHANNEL_TAIL, to);
    if (!wait.awaitAtLeast(workspace.signals(rank), tail, message - SLOTS + 1, operation)) {
      throw timeout(
          operation,
          "rank %d did not take data from its channel (message %d waits for a slot, %d taken)"
              .formatted(to, message, FlagWait.read(workspace.signals(rank), tail)));
    }
    return slotOffset(message);
  }

  /** Publishes the message just written into the slot {@link #acquireSendSlot} returned. */
  void publish(int to) {
    int message = ++sent[to];
    FlagWait.publish(
        workspace.signals(to), layout.offset(SignalLayout.CHANNEL_HEAD, rank), message);
  }

  /** Waits for the next message from {@code from}; returns its offset in that rank's staging. */
  long awaitMessage(int from, String operation) {
    int message = received[from];
    long head = layout.offset(SignalLayout.CHANNEL_HEAD, from);
    if (!wait.awaitAtLeast(workspace.signals(rank), head, message + 1, operation)) {
      throw timeout(
          operation,
          "rank %d did not send the expected data (waiting for message %d, %d sent)"
              .formatted(from, message + 1, FlagWait.read(workspace.signals(rank), head)));
    }
    return slotOffset(message);
  }

  /** Gives the slot of the message just read back to {@code from}. */
  void release(int from) {
    int message = ++received[from];
    FlagWait.publish(
        workspace.signals(from), layout.offset(SignalLayout.CHANNEL_TAIL, rank), message);
  }

  /** Waits until {@code to} has consumed every message sent to it. */
  void drain(int to, String operation) {
    long tail = layout.offset(SignalLayout.CHANNEL_TAIL, to);
    if (!wait.awaitAtLeast(workspace.signals(rank), tail, sent[to], operation)) {
      throw timeout(
          operation,
          "rank %d did not take all data from its channel (%d sent, %d taken)"
              .formatted(to, sent[to], FlagWait.read(workspace.signals(rank), tail)));
    }
  }

  MemorySegment ownStaging() {
    return workspace.staging(rank);
  }

  MemorySegment staging(int peer) {
    return workspace.staging(peer);
  }

  private long slotOffset(int message) {
    return (long) Integer.remainderUnsigned(message, SLOTS) * slotBytes;
  }

  private PeerTimeoutException timeout(String operation, String what) {
    return new PeerTimeoutException(
        "%s on rank %d: %s within %d ms"
            .formatted(operation, rank, what, wait.timeout().toMillis()));
  }
}
