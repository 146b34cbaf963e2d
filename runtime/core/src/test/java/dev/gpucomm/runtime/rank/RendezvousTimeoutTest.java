package dev.gpucomm.runtime.rank;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Ranks give up on the rendezvous before their launcher gives up on them. */
class RendezvousTimeoutTest {
  @Test
  void aRankGivesUpATenthBeforeTheJobsTimeoutWithinTwoToTenSeconds() {
    assertThat(RankMain.rendezvousTimeout(Duration.ofSeconds(600))).hasSeconds(590);
    assertThat(RankMain.rendezvousTimeout(Duration.ofSeconds(40))).hasSeconds(36);
    assertThat(RankMain.rendezvousTimeout(Duration.ofSeconds(10))).hasSeconds(8);
  }

  @Test
  void aTimeoutTooShortToShareIsKeptWhole() {
    assertThat(RankMain.rendezvousTimeout(Duration.ofSeconds(3))).hasSeconds(3);
    assertThat(RankMain.rendezvousTimeout(Duration.ofSeconds(1))).hasSeconds(1);
  }
}
