package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HostPathTrialTest {
  private static final long MIB = 1L << 20;

  @Test
  void theRanksAgreeOnTheSlowestRanksFiguresWhateverOrderTheyReadThemIn() {
    String fastRank = HostPathTrial.Outcome.encode(186.0, 194.0);
    String slowRank = HostPathTrial.Outcome.encode(191.5, 193.0);

    HostPathTrial.Outcome rank0 =
        HostPathTrial.Outcome.agreed(64 * MIB, new String[] {fastRank, slowRank});
    HostPathTrial.Outcome rank1 =
        HostPathTrial.Outcome.agreed(64 * MIB, new String[] {slowRank, fastRank});

    assertThat(rank0).isEqualTo(rank1);
    assertThat(rank0.withMicros()).isEqualTo(191.5);
    assertThat(rank0.withoutMicros()).isEqualTo(194.0);
    assertThat(rank0.pays()).isTrue();
  }

  @Test
  void aHostWhosePcieLinksAreSlowKeepsCallsOnNvlinkAndSaysWhy() {
    // As measured on a 2 x H100 host: the one-shot with 6 % through host memory, and without.
    HostPathTrial.Outcome outcome =
        HostPathTrial.Outcome.agreed(
            64 * MIB,
            new String[] {
              HostPathTrial.Outcome.encode(278.9, 195.5), HostPathTrial.Outcome.encode(279.3, 195.4)
            });

    assertThat(outcome.pays()).isFalse();
    assertThat(outcome.describe(HostPath.Route.ONE_SHOT))
        .isEqualTo("64 MiB one-shot measured 279.3 µs with it, 195.5 without");
  }

  @Test
  void aTieIsNoGainSoTheSimplerPathStays() {
    HostPathTrial.Outcome outcome =
        HostPathTrial.Outcome.agreed(
            64 * MIB, new String[] {HostPathTrial.Outcome.encode(200.0, 200.0)});

    assertThat(outcome.pays()).isFalse();
  }

  @Test
  void aMalformedEntryInTheStoreIsAnErrorNotAVerdict() {
    assertThatThrownBy(
            () -> HostPathTrial.Outcome.agreed(64 * MIB, new String[] {"186.0 194.0", "186.0"}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'186.0'");
  }

  @Test
  void theTrialSizeIsTheSmallestDefaultHostPathCallWithinThePeerBuffer() {
    HostPathSettings defaults = HostPathSettings.defaults();
    assertThat(HostPathTrial.trialBytes(defaults, 256 * MIB)).isEqualTo(64 * MIB);
    assertThat(HostPathTrial.trialBytes(defaults, 64 * MIB)).isEqualTo(64 * MIB);

    HostPathSettings fromSmallCalls = withMinBytes(16);
    assertThat(HostPathTrial.trialBytes(fromSmallCalls, 256 * MIB)).isEqualTo(64 * MIB);
    assertThat(HostPathTrial.trialBytes(fromSmallCalls, 8 * MIB)).isEqualTo(8 * MIB);

    HostPathSettings fromLargeCalls = withMinBytes(128 * MIB);
    assertThat(HostPathTrial.trialBytes(fromLargeCalls, 256 * MIB)).isEqualTo(128 * MIB);
  }

  @Test
  void theMedianOfTheRoundsIgnoresOneSlowRound() {
    assertThat(HostPathTrial.median(new double[] {195.1, 195.4, 412.0, 195.2, 195.3}))
        .isEqualTo(195.3);
    assertThat(HostPathTrial.median(new double[] {2.0, 1.0})).isEqualTo(1.5);
  }

  private static HostPathSettings withMinBytes(long minBytes) {
    HostPathSettings d = HostPathSettings.defaults();
    return new HostPathSettings(
        d.mode(), minBytes, d.oneShotShare(), d.twoShotShare(), d.chunks(), Path.of("/dev/shm"));
  }
}
