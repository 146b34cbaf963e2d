package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.lang.foreign.MemorySegment;

/**
 * Point-to-point channels between the ranks of one pod through shared memory.
 *
 * <p>A sender writes a message into one of {@link CpuBackendConfig#CHANNEL_SLOTS} slots at the
 * start of its own staging area and publishes it by raising the head count that it keeps in the
 * receiver's signal area; the receiver copies the message out of the sender's slot and gives the
 * slot back by raising the tail count it keeps in the sender's signal area. Both sides poll only
 * their own area. Counts only grow, per pair of ranks, across calls and graph replays.
 *
 * <p>One staging area serves every destination, so an operation must {@link #drain} its channel
 * before it returns: afterwards the staging area is free for the next collective.
 *
 * <p>Peers are named by global rank; the shared workspace and the signal flags are indexed by the
 * rank's position in its pod.
 */
final class PeerChannels implements MessageChannels {
  private static final int SLOTS = CpuBackendConfig.CHANNEL_SLOTS;

  private final int rank;
  private final int firstRankOfPod;
  private final int localRank;
  private final int slotBytes;
  private final SharedWorkspace workspace;
  private final SignalLayout layout;
  private final FlagWait wait;
  private final int[] sent;
  private final int[] received;
  private final MemorySegment[][] slots;

  PeerChannels(
      int rank,
      int firstRankOfPod,
      int ranksPerPod,
      int slotBytes,
      SharedWorkspace workspace,
      SignalLayout layout,
      FlagWait wait) {
    this.rank = rank;
    this.firstRankOfPod = firstRankOfPod;
    this.localRank = rank - firstRankOfPod;
    this.slotBytes = slotBytes;
    this.workspace = workspace;
    this.layout = layout;
    this.wait = wait;
    this.sent = new int[ranksPerPod];
    this.received = new int[ranksPerPod];
    // Slices made once: a slice per message would allocate on the hot path.
    this.slots = new MemorySegment[ranksPerPod][SLOTS];
    for (int local = 0; local < ranksPerPod; local++) {
      for (int slot = 0; slot < SLOTS; slot++) {
        slots[local][slot] = workspace.staging(local).asSlice((long) slot * slotBytes, slotBytes);
      }
    }
  }

  @Override
  public int slotBytes() {
    return slotBytes;
  }

  @Override
  public MemorySegment acquireSendSlot(int to, String operation) {
    int local = to - firstRankOfPod;
    int message = sent[local];
    long tail = layout.offset(SignalLayout.CHANNEL_TAIL, local);
    if (!wait.awaitAtLeast(workspace.signals(localRank), tail, message - SLOTS + 1, operation)) {
      throw timeout(
          operation,
          "rank %d did not take data from its channel (message %d waits for a slot, %d taken)"
              .formatted(to, message, FlagWait.read(workspace.signals(localRank), tail)));
    }
    return slots[localRank][slotIndex(message)];
  }

  @Override
  public void publish(int to, long bytes, String operation) {
    int local = to - firstRankOfPod;
    int message = ++sent[local];
    FlagWait.publish(
        workspace.signals(local), layout.offset(SignalLayout.CHANNEL_HEAD, localRank), message);
  }

  @Override
  public MemorySegment awaitMessage(int from, String operation) {
    int local = from - firstRankOfPod;
    int message = received[local];
    long head = layout.offset(SignalLayout.CHANNEL_HEAD, local);
    if (!wait.awaitAtLeast(workspace.signals(localRank), head, message + 1, operation)) {
      throw timeout(
          operation,
          "rank %d did not send the expected data (waiting for message %d, %d sent)"
              .formatted(from, message + 1, FlagWait.read(workspace.signals(localRank), head)));
    }
    return slots[local][slotIndex(message)];
  }

  @Override
  public void release(int from) {
    int local = from - firstRankOfPod;
    int message = ++received[local];
    FlagWait.publish(
        workspace.signals(local), layout.offset(SignalLayout.CHANNEL_TAIL, localRank), message);
  }

  @Override
  public void drain(int to, String operation) {
    int local = to - firstRankOfPod;
    long tail = layout.offset(SignalLayout.CHANNEL_TAIL, local);
    if (!wait.awaitAtLeast(workspace.signals(localRank), tail, sent[local], operation)) {
      throw timeout(
          operation,
          "rank %d did not take all data from its channel (%d sent, %d taken)"
              .formatted(to, sent[local], FlagWait.read(workspace.signals(localRank), tail)));
    }
  }

  private static int slotIndex(int message) {
    return Integer.remainderUnsigned(message, SLOTS);
  }

  private PeerTimeoutException timeout(String operation, String what) {
    return new PeerTimeoutException(
        "%s on rank %d: %s within %d ms"
            .formatted(operation, rank, what, wait.timeout().toMillis()));
  }
}
