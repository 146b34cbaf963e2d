package dev.gpucomm.runtime.collective.cpu;

/**
 * The end barrier that one-shot all-reduces leave pending. A one-shot call stages its input into
 * one of two halves of the staging area, alternating between calls (and passes), so it needs no end
 * barrier: a peer reads half h in call k only after every rank has staged call k, and no rank
 * writes half h again (call k + 2) before every rank has arrived at the start of call k + 1, by
 * which time every peer has finished reading call k. Every other collective uses the whole staging
 * area (or the channel slots inside it) and the barriers after it, so it first {@link #settle
 * settles} what the one-shots left: one end barrier, however many one-shots ran since.
 *
 * <p>Every rank runs the same collectives in the same order, so every rank skips and settles the
 * same barriers and the barrier's epochs stay in step.
 */
final class PendingEndBarrier {
  private final FlagBarrier end;
  // Only the thread that runs the communicator's collectives, one at a time, touches it.
  private boolean pending;

  PendingEndBarrier(FlagBarrier end) {
    this.end = end;
  }

  /** Called by a one-shot all-reduce in place of its end barrier. */
  void leavePending() {
    pending = true;
  }

  /** Meets the other ranks at the end barrier if a one-shot left it pending. */
  void settle(String operation) {
    if (pending) {
      pending = false;
      end.arriveAndWait(operation);
    }
  }
}
