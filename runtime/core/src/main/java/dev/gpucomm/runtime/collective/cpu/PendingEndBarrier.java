package dev.gpucomm.runtime.collective.cpu;

/**
 * The end barrier of one-shot all-reduces, split in two. A one-shot call stages its input into one
 * of two halves of the staging area, alternating between calls (and passes), so it need not wait at
 * its end: a peer reads half h in call k only after every rank has staged call k, and no rank
 * writes half h again (call k + 2) before every rank has arrived at the start of call k + 1, by
 * which time every peer has finished reading call k. So a one-shot only {@link #arrive arrives} at
 * the end barrier when it has read what it needs ("done reading your staging area"), and every
 * other collective, which uses the whole staging area (or the channel slots inside it), first
 * {@link #settle waits} for the peers' latest arrival.
 *
 * <p>Settling only waits, so it needs nothing from the ranks that do not take part: send/receive
 * between two ranks of a pod settles while the third rank is elsewhere (it arrived when its own
 * one-shot finished). Arrivals are collective: every rank runs every one-shot, so the barrier's
 * epochs stay in step.
 */
final class PendingEndBarrier {
  private final FlagBarrier end;
  // Only the thread that runs the communicator's collectives, one at a time, touches these.
  private boolean pending;
  private int lastArrival;

  PendingEndBarrier(FlagBarrier end) {
    this.end = end;
  }

  /** Called by a one-shot all-reduce pass once it has read every peer's staging area. */
  void arrive() {
    lastArrival = end.arrive();
    pending = true;
  }

  /** Waits until every peer has finished reading this rank's staging area in its one-shots. */
  void settle(String operation) {
    if (pending) {
      pending = false;
      end.awaitEveryRank(lastArrival, operation);
    }
  }
}
