package dev.gpucomm.runtime.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides from the medians of successive warm-up rounds whether the time per call has settled.
 *
 * <p>Settled means that every round of the last {@link #WINDOW_NANOS} of wall time (at least {@link
 * #MIN_ROUNDS} rounds) lies within {@link #TOLERANCE} of the fastest of them. A window measured in
 * time rather than in rounds matters on the CPU backend: before the JIT compiles the reduction
 * loops, slow interpreted calls look just as stable round after round, and the compiled code
 * arrives only after the compiler threads have had their share of a busy machine.
 */
final class SteadyState {
  /** How far the rounds in the window may spread, relative to the fastest. */
  static final double TOLERANCE = 0.10;

  /** Rounds the window must hold at least. */
  static final int MIN_ROUNDS = 3;

  /** The wall time over which the rounds must agree. */
  static final long WINDOW_NANOS = 300_000_000L;

  private final List<Round> rounds = new ArrayList<>();
  private final long startedAtNanos;

  private record Round(long endedAtNanos, double medianMicros) {}

  SteadyState(long startedAtNanos) {
    this.startedAtNanos = startedAtNanos;
  }

  /** Notes a round that ended at {@code endedAtNanos} with median {@code medianMicros} per call. */
  void add(long endedAtNanos, double medianMicros) {
    rounds.add(new Round(endedAtNanos, medianMicros));
  }

  int rounds() {
    return rounds.size();
  }

  /** True once the rounds of the last window agree and the warm-up has lasted a whole window. */
  boolean settled() {
    if (rounds.size() < MIN_ROUNDS) {
      return false;
    }
    long last = rounds.getLast().endedAtNanos();
    if (last - startedAtNanos < WINDOW_NANOS) {
      return false;
    }
    double fastest = Double.MAX_VALUE;
    double slowest = 0;
    int inWindow = 0;
    for (int i = rounds.size() - 1; i >= 0; i--) {
      Round round = rounds.get(i);
      if (inWindow >= MIN_ROUNDS && last - round.endedAtNanos() > WINDOW_NANOS) {
        break;
      }
      fastest = Math.min(fastest, round.medianMicros());
      slowest = Math.max(slowest, round.medianMicros());
      inWindow++;
    }
    return slowest <= fastest * (1 + TOLERANCE);
  }
}
