package dev.gpucomm.runtime.collective.cuda;

/**
 * The failure of a call that stopped part-way through a protocol shared with peers (tokens raised,
 * streams not joined, a kernel that never ran and so never advanced this rank's epochs), after
 * which the collective refuses every call: the next would wait on peers for a state they never
 * reach, or take data meant for another call.
 */
final class EarlierFailure {
  private String failedCall;
  private volatile RuntimeException first;

  /**
   * Keeps the first failure; later ones came after it and say less.
   *
   * @param failedCall what failed, as in "an earlier copy-engine call failed part-way"
   */
  synchronized void record(String failedCall, RuntimeException failure) {
    if (first == null) {
      this.failedCall = failedCall;
      first = failure;
    }
  }

  /**
   * @throws IllegalStateException naming the earlier failure (also its cause), when there was one
   */
  synchronized void refuseAfterFailure(String collective, int localRank) {
    RuntimeException earlier = first;
    if (earlier != null) {
      throw new IllegalStateException(
          "%s of local rank %d cannot run: %s and left the peers' state unknown"
                  .formatted(collective, localRank, failedCall)
              + " ("
              + earlier
              + "); recreate the communicator",
          earlier);
    }
  }
}
