package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SteadyStateTest {
  private static final long MS = 1_000_000L;

  @Test
  void slowCallsThatAreStableButLastLessThanAWindowHaveNotSettled() {
    SteadyState state = new SteadyState(0);
    state.add(50 * MS, 1000);
    state.add(100 * MS, 1000);
    state.add(150 * MS, 1000);

    assertThat(state.settled()).isFalse();
  }

  @Test
  void aDropInsideTheWindowMeansTheJitIsStillAtWork() {
    SteadyState state = new SteadyState(0);
    for (long t = 100; t <= 300; t += 100) {
      state.add(t * MS, 1000);
    }
    state.add(400 * MS, 30);

    assertThat(state.settled()).isFalse();
  }

  @Test
  void roundsThatAgreeForAWholeWindowHaveSettled() {
    SteadyState state = new SteadyState(0);
    state.add(100 * MS, 1000);
    for (long t = 200; t <= 600; t += 100) {
      state.add(t * MS, 30 + t % 3);
    }

    assertThat(state.settled()).isTrue();
  }

  @Test
  void fewerThanTheMinimumRoundsNeverSettle() {
    SteadyState state = new SteadyState(0);
    state.add(400 * MS, 30);
    state.add(800 * MS, 30);

    assertThat(state.settled()).isFalse();
  }

  @Test
  void aRoundOfCallsMovesAtMostItsByteBudgetButAlwaysAFewCalls() {
    assertThat(SteadyStateWarmup.callsPerRound(16 << 10))
        .isEqualTo(SteadyStateWarmup.MAX_CALLS_PER_ROUND);
    assertThat(SteadyStateWarmup.callsPerRound(1 << 20)).isEqualTo(64);
    assertThat(SteadyStateWarmup.callsPerRound(1L << 30))
        .isEqualTo(SteadyStateWarmup.MIN_CALLS_PER_ROUND);
  }
}
