package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;

/**
 * Untimed rounds of calls until the time per call has settled on every rank, or a time budget is
 * spent: the CPU backend's warm-up, whose steady state depends on when the JIT gets to compile the
 * collective's loops and so cannot be reached by a fixed count of calls.
 *
 * <p>Every rank must make the same number of collective calls, so after each round the ranks vote
 * through the store and go on while any of them has not settled and still has budget left.
 */
final class SteadyStateWarmup {
  /** Bytes per rank one round moves at most, so that a round at a large size stays short. */
  static final long BYTES_PER_ROUND = 64L << 20;

  /** Calls per round at small sizes: enough for a median that one preempted call cannot move. */
  static final int MAX_CALLS_PER_ROUND = 100;

  /** Calls per round at large sizes. */
  static final int MIN_CALLS_PER_ROUND = 4;

  /** Rounds at most, whatever the budget: bounds the votes when clocks or budgets disagree. */
  static final int MAX_ROUNDS = 400;

  private final CallTimer timer;
  private final KeyValueStore store;
  private final int worldSize;
  private final Duration peerTimeout;
  private final double[] micros = new double[MAX_CALLS_PER_ROUND];

  SteadyStateWarmup(CallTimer timer, KeyValueStore store, int worldSize, Duration peerTimeout) {
    this.timer = timer;
    this.store = store;
    this.worldSize = worldSize;
    this.peerTimeout = peerTimeout;
  }

  /** Calls per round for a call that moves {@code bytes} per rank; the same on every rank. */
  static int callsPerRound(long bytes) {
    long byBytes = BYTES_PER_ROUND / Math.max(1, bytes);
    return (int) Math.max(MIN_CALLS_PER_ROUND, Math.min(MAX_CALLS_PER_ROUND, byBytes));
  }

  /**
   * Runs rounds of {@code call} (each a call, or a graph replay, queued on {@code stream}) until
   * every rank has settled or spent {@code budget}; {@code key} must be unique to this warm-up and
   * the same on every rank. Returns the rounds run.
   */
  int run(Runnable call, Stream stream, long bytes, Duration budget, String key) {
    int callsPerRound = callsPerRound(bytes);
    long started = System.nanoTime();
    long deadline = started + budget.toNanos();
    SteadyState steadyState = new SteadyState(started);
    for (int round = 0; round < MAX_ROUNDS; round++) {
      timer.timeCalls(call, stream, callsPerRound, 1, micros);
      long now = System.nanoTime();
      steadyState.add(now, CallTimer.median(micros, callsPerRound));
      boolean goOn = !steadyState.settled() && now - deadline < 0;
      if (!anyRankGoesOn(goOn, key + "/round-" + round, key + "/vote")) {
        break;
      }
    }
    return steadyState.rounds();
  }

  private boolean anyRankGoesOn(boolean goOn, String roundKey, String barrier) {
    store.add(roundKey, goOn ? 1 : 0);
    store.barrier(barrier, worldSize, peerTimeout);
    return store.add(roundKey, 0) > 0;
  }
}
