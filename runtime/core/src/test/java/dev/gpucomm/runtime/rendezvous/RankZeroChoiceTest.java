package dev.gpucomm.runtime.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Rank 0 chooses once; every other rank takes its choice from the store. */
class RankZeroChoiceTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  @Test
  void everyRankTakesRankZerosChoiceAndOnlyRankZeroChooses() {
    InMemoryStore store = new InMemoryStore();
    AtomicInteger choices = new AtomicInteger();

    String onRankZero =
        RankZeroChoice.agree(
            store, "job/align", 0, TIMEOUT, () -> choices.incrementAndGet() == 1 ? "on" : "off");
    String onRankOne =
        RankZeroChoice.agree(store, "job/align", 1, TIMEOUT, () -> "rank 1 must not choose");
    String onRankTwo =
        RankZeroChoice.agree(store, "job/align", 2, TIMEOUT, () -> "rank 2 must not choose");

    assertThat(onRankZero).isEqualTo("on");
    assertThat(onRankOne).isEqualTo("on");
    assertThat(onRankTwo).isEqualTo("on");
    assertThat(choices).hasValue(1);
  }

  @Test
  void aRankWhoseRankZeroNeverChoseTimesOut() {
    InMemoryStore store = new InMemoryStore();

    assertThatThrownBy(
            () ->
                RankZeroChoice.agree(
                    store, "job/seed", 1, Duration.ofMillis(50), () -> "rank 1 must not choose"))
        .isInstanceOf(RendezvousTimeoutException.class)
        .hasMessageContaining("job/seed");
  }
}
