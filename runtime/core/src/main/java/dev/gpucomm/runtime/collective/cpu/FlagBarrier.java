package dev.gpucomm.runtime.collective.cpu;

import java.util.StringJoiner;

/**
 * A barrier of all ranks over shared-memory flags: each rank stores the barrier's new epoch into
 * its own flag in every peer's signal area (one remote store per peer, release), then polls the
 * peers' flags in its own area (acquire) until each has reached that epoch. Data written before
 * arriving is visible to every rank after it leaves.
 *
 * <p>Every kind of barrier (start, middle, end) has its own flag set and epoch, so that a fast rank
 * arriving at the next barrier can never overwrite a flag a slow rank still waits for.
 */
final class FlagBarrier {
  private final String name;
  private final int set;
  private final int rank;
  private final int worldSize;
  private final SharedWorkspace workspace;
  private final SignalLayout layout;
  private final FlagWait wait;
  private int epoch;

  FlagBarrier(
      String name,
      int set,
      int rank,
      int worldSize,
      SharedWorkspace workspace,
      SignalLayout layout,
      FlagWait wait) {
    this.name = name;
    this.set = set;
    this.rank = rank;
    this.worldSize = worldSize;
    this.workspace = workspace;
    this.layout = layout;
    this.wait = wait;
  }

  /** Arrives and waits for every rank; {@code operation} names the collective in errors. */
  void arriveAndWait(String operation) {
    awaitEveryRank(arrive(), operation);
  }

  /**
   * Arrives without waiting: tells every peer that this rank has reached the barrier's next epoch,
   * and returns that epoch for {@link #awaitEveryRank}. Every rank must arrive as often as the
   * others.
   */
  int arrive() {
    int target = ++epoch;
    long myFlag = layout.offset(set, rank);
    for (int step = 1; step < worldSize; step++) {
      int peer = (rank + step) % worldSize;
      FlagWait.publish(workspace.signals(peer), myFlag, target);
    }
    return target;
  }

  /**
   * Waits until every peer has arrived at epoch {@code target} (or later) of this barrier; it does
   * not arrive itself, so a rank may wait for an earlier arrival while the peers have gone on.
   */
  void awaitEveryRank(int target, String operation) {
    for (int step = 1; step < worldSize; step++) {
      int peer = (rank + step) % worldSize;
      if (!wait.awaitAtLeast(
          workspace.signals(rank), layout.offset(set, peer), target, operation)) {
        throw new PeerTimeoutException(
            "%s on rank %d: %s did not reach the %s barrier within %d ms (epoch %d)"
                .formatted(
                    operation,
                    rank,
                    missingPeers(target),
                    name,
                    wait.timeout().toMillis(),
                    target));
      }
    }
  }

  private String missingPeers(int target) {
    StringJoiner missing = new StringJoiner(", ");
    int count = 0;
    for (int peer = 0; peer < worldSize; peer++) {
      if (peer != rank
          && !FlagWait.reached(
              FlagWait.read(workspace.signals(rank), layout.offset(set, peer)), target)) {
        missing.add(Integer.toString(peer));
        count++;
      }
    }
    return (count == 1 ? "rank " : "ranks ") + missing;
  }
}
