package dev.gpucomm.runtime.collective.cuda;

/**
 * The failure of a call that stopped part-way through a protocol shared with peers (tokens raised,
 * streams not joined), after which the collective refuses every call: the next would wait on peers
 * for a state they never reach.
 */
final class EarlierFailure {
  private final String failedCall;
  private volatile RuntimeException first;

  /** {@code failedCall} says what failed, as in "an earlier copy-engine call". */
  EarlierFailure(String failedCall) {
    this.failedCall = failedCall;
  }

  /** Keeps the first failure; later ones came after it and say less. */
  synchronized void record(RuntimeException failure) {
    if (first == null) {
      first = failure;
    }
  }

  /**
   * @throws IllegalStateException naming the earlier failure (also its cause), when there was one
   */
  void refuseAfterFailure(String collective, int localRank) {
    RuntimeException earlier = first;
    if (earlier != null) {
      throw new IllegalStateException(
          "%s of local rank %d cannot run: %s failed part-way and left the peers' state unknown"
                  .formatted(collective, localRank, failedCall)
              + " ("
              + earlier
              + "); recreate the communicator",
          earlier);
    }
  }
}
