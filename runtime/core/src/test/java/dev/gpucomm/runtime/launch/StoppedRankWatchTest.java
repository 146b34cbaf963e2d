package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoppedRankWatchTest {
  private static final long SECOND = 1_000_000_000L;

  private final Map<Long, Character> states = new HashMap<>(Map.of(100L, 'S', 101L, 'R'));
  private final StoppedRankWatch watch =
      new StoppedRankWatch(Duration.ofSeconds(30), pid -> Optional.ofNullable(states.get(pid)));
  private final Map<Integer, Long> pids = Map.of(0, 100L, 1, 101L);

  @Test
  void aRankStoppedForTheWholeLimitIsNamed() {
    states.put(101L, 'T');

    assertThat(watch.check(pids, 0)).isEmpty();
    assertThat(watch.check(pids, 29 * SECOND)).isEmpty();
    assertThat(watch.check(pids, 30 * SECOND)).contains(1);
  }

  @Test
  void aRankStoppedNowIsSeenAtOnceWhenAskedSo() {
    assertThat(watch.stoppedNow(pids)).isEmpty();

    states.put(101L, 't'); // stopped by a debugger

    assertThat(watch.stoppedNow(pids)).contains(1);
  }

  @Test
  void aRankResumedInBetweenStartsAgain() {
    states.put(101L, 'T');
    watch.check(pids, 0);
    states.put(101L, 'R');
    watch.check(pids, 10 * SECOND);
    states.put(101L, 't');

    assertThat(watch.check(pids, 35 * SECOND)).isEmpty();
    assertThat(watch.check(pids, 65 * SECOND)).contains(1);
  }

  @Test
  void theStateIsTheFieldAfterTheCommandEvenWhenTheCommandHasParentheses() {
    assertThat(StoppedRankWatch.stateIn("4242 (java (rank) x) T 1 4242 4242 0 -1")).contains('T');
    assertThat(StoppedRankWatch.stateIn("garbage")).isEmpty();
  }

  @Test
  void thisProcessIsSeenRunningOrSleeping() {
    Optional<Character> state = StoppedRankWatch.procState(ProcessHandle.current().pid());

    state.ifPresent(letter -> assertThat(letter).isIn('R', 'S', 'D'));
  }
}
