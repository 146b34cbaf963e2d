package dev.gpucomm.runtime.collective.cpu;

import java.lang.foreign.MemorySegment;

/**
 * The channels of a rank whose job spans pods: peers of its own pod through shared memory, every
 * other peer through its TCP link.
 */
final class PodRoutedChannels implements MessageChannels {
  private final int firstRankOfPod;
  private final int ranksPerPod;
  private final PeerChannels insidePod;
  private final TcpPeerLinks acrossPods;

  PodRoutedChannels(
      int firstRankOfPod, int ranksPerPod, PeerChannels insidePod, TcpPeerLinks acrossPods) {
    if (insidePod.slotBytes() != acrossPods.slotBytes()) {
      throw new IllegalArgumentException(
          "shared-memory slots of %d bytes and TCP slots of %d bytes differ"
              .formatted(insidePod.slotBytes(), acrossPods.slotBytes()));
    }
    this.firstRankOfPod = firstRankOfPod;
    this.ranksPerPod = ranksPerPod;
    this.insidePod = insidePod;
    this.acrossPods = acrossPods;
  }

  private boolean samePod(int peer) {
    return peer >= firstRankOfPod && peer < firstRankOfPod + ranksPerPod;
  }

  @Override
  public int slotBytes() {
    return insidePod.slotBytes();
  }

  @Override
  public MemorySegment acquireSendSlot(int to, String operation) {
    return samePod(to)
        ? insidePod.acquireSendSlot(to, operation)
        : acrossPods.acquireSendSlot(to, operation);
  }

  @Override
  public void publish(int to, long bytes, String operation) {
    if (samePod(to)) {
      insidePod.publish(to, bytes, operation);
    } else {
      acrossPods.publish(to, bytes, operation);
    }
  }

  @Override
  public MemorySegment awaitMessage(int from, String operation) {
    return samePod(from)
        ? insidePod.awaitMessage(from, operation)
        : acrossPods.awaitMessage(from, operation);
  }

  @Override
  public void release(int from) {
    if (samePod(from)) {
      insidePod.release(from);
    } else {
      acrossPods.release(from);
    }
  }

  @Override
  public void drain(int to, String operation) {
    if (samePod(to)) {
      insidePod.drain(to, operation);
    } else {
      acrossPods.drain(to, operation);
    }
  }
}
