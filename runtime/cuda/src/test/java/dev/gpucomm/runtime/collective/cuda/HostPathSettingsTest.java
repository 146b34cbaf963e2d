package dev.gpucomm.runtime.collective.cuda;

import static dev.gpucomm.runtime.collective.cuda.HostPath.Route.ONE_SHOT;
import static dev.gpucomm.runtime.collective.cuda.HostPath.Route.TWO_SHOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.collective.RankTopology;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostPathSettingsTest {
  private static final long MIB = 1L << 20;

  @Test
  void byDefaultSixPercentOfOneshotsFrom64MibGoThroughHostMemoryInTwoEqualChunks() {
    HostPathSettings settings = HostPathSettings.defaults();

    long host = settings.hostBytes(ONE_SHOT, 64 * MIB, 2);
    assertThat(host).isEqualTo(2 * 256 * (long) Math.floor(64 * MIB * 0.06 / 256 / 2));
    assertThat(host % (256 * 2)).as("two chunks of whole 256-byte blocks").isZero();
    assertThat(host).isBetween((long) (64 * MIB * 0.0599), (long) (64 * MIB * 0.06));
    assertThat(settings.hostBytes(ONE_SHOT, 64 * MIB - 16, 2)).isZero();
    assertThat(settings.hostBytes(ONE_SHOT, 32 * MIB, 2)).isZero();
    assertThat(settings.shareOf(ONE_SHOT, 32 * MIB, 2))
        .as("the share of a call below the minimum, for forced runs")
        .isBetween(
            settings.hostBytes(ONE_SHOT, 64 * MIB, 2) / 2 - 512,
            settings.hostBytes(ONE_SHOT, 64 * MIB, 2) / 2);
  }

  @Test
  void anOddSizeLeavesItsPartialVectorToTheNvlinkPart() {
    HostPathSettings settings = HostPathSettings.defaults();
    long bytes = 64 * MIB + 2;

    long host = settings.hostBytes(ONE_SHOT, bytes, 2);
    assertThat(host % 512).isZero();
    assertThat(bytes - host).isPositive();
  }

  @Test
  void stagingHoldsTheShareOfTheLargestCallOrNothingWhenNoCallReachesTheMinimum() {
    HostPathSettings settings = HostPathSettings.defaults();

    assertThat(settings.stagingBytes(64 * MIB))
        .isGreaterThanOrEqualTo(settings.hostBytes(ONE_SHOT, 64 * MIB, 2))
        .isGreaterThanOrEqualTo(settings.hostBytes(TWO_SHOT, 64 * MIB, 4))
        .isLessThanOrEqualTo((long) (64 * MIB * 0.08) + 512);
    assertThat(settings.stagingBytes(32 * MIB)).isZero();
  }

  @Test
  void theEnvironmentSetsEveryKnob() {
    HostPathSettings settings =
        CudaCommunicatorSettings.from(
                Map.of(
                    "GPUCOMM_HOST_PATH_MIN_BYTES", "33554432",
                    "GPUCOMM_HOST_PATH_SHARE", "0.1",
                    "GPUCOMM_HOST_PATH_CHUNKS", "4"))
            .hostPath();

    assertThat(settings.enabled()).isTrue();
    assertThat(settings.minBytes()).isEqualTo(32 * MIB);
    assertThat(settings.oneShotShare()).isEqualTo(0.1);
    assertThat(settings.chunks()).isEqualTo(4);
    assertThat(CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "off")).hostPath())
        .extracting(HostPathSettings::enabled)
        .isEqualTo(false);
  }

  @Test
  void badValuesAreRefusedNamingTheVariable() {
    assertThatThrownBy(() -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "yes")))
        .hasMessage("GPUCOMM_HOST_PATH must be auto, on or off, got 'yes'");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH_SHARE", "0.7")))
        .hasMessage("GPUCOMM_HOST_PATH_SHARE must be a fraction above 0 and at most 0.5, got 0.7");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH_SHARE", "six")))
        .hasMessage("GPUCOMM_HOST_PATH_SHARE must be a fraction such as 0.06, got 'six'");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH_CHUNKS", "17")))
        .hasMessage("GPUCOMM_HOST_PATH_CHUNKS must be between 1 and 16, got 17");
    assertThatThrownBy(
            () -> CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH_MIN_BYTES", "-1")))
        .hasMessage("GPUCOMM_HOST_PATH_MIN_BYTES must not be negative, got -1");
  }

  @Test
  void theTwoshotSendsEightPercentInOneEqualPartPerRankOfWholeChunks() {
    HostPathSettings settings = HostPathSettings.defaults();

    long host = settings.hostBytes(TWO_SHOT, 64 * MIB, 4);
    assertThat(host % (4 * 2 * 256)).as("4 parts of 2 chunks of whole 256-byte blocks").isZero();
    assertThat(host).isBetween((long) (64 * MIB * 0.0799), (long) (64 * MIB * 0.08));
  }

  @Test
  void oneShareFromTheEnvironmentSetsBothKernels() {
    HostPathSettings settings =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH_SHARE", "0.1")).hostPath();

    assertThat(settings.oneShotShare()).isEqualTo(0.1);
    assertThat(settings.twoShotShare()).isEqualTo(0.1);
  }

  @Test
  void byDefaultTheOneshotTakesItOnTwoRanksAndTheTwoshotOnFourWhereItWasMeasured() {
    HostPathSettings auto = HostPathSettings.defaults();
    HostPathSettings on =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "on")).hostPath();
    HostPathSettings off =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "off")).hostPath();

    assertThat(auto.takes(HostPath.Route.ONE_SHOT, 2)).isTrue();
    assertThat(auto.takes(HostPath.Route.TWO_SHOT, 2)).isFalse();
    assertThat(auto.takes(HostPath.Route.TWO_SHOT, 4)).isTrue();
    assertThat(auto.takes(HostPath.Route.ONE_SHOT, 4)).as("its kernel reduces one peer").isFalse();
    assertThat(auto.takes(HostPath.Route.TWO_SHOT, 8)).as("measured slower on 8").isFalse();
    assertThat(on.takes(HostPath.Route.TWO_SHOT, 8)).isTrue();
    assertThat(on.takes(HostPath.Route.TWO_SHOT, 2)).isTrue();
    assertThat(on.takes(HostPath.Route.ONE_SHOT, 4)).isFalse();
    assertThat(off.takes(HostPath.Route.ONE_SHOT, 2)).isFalse();
    assertThat(off.takes(HostPath.Route.TWO_SHOT, 4)).isFalse();
  }

  @Test
  void theOneshotsHostKernelRunsOnTwoRanksOnlyAndTheTwoshotsOnAnyNumber() {
    assertThat(HostPath.Route.ONE_SHOT.runsOn(2)).isTrue();
    assertThat(HostPath.Route.ONE_SHOT.runsOn(4)).isFalse();
    assertThat(HostPath.Route.TWO_SHOT.runsOn(2)).isTrue();
    assertThat(HostPath.Route.TWO_SHOT.runsOn(8)).isTrue();
    assertThat(HostPath.Route.TWO_SHOT.runsOn(1)).as("nothing to exchange").isFalse();
  }

  @Test
  void theHostPathIsTriedOnTwoOrFourRanksOfANodeWithABufferThatReachesTheMinimum() {
    CudaCommunicatorSettings defaults = CudaCommunicatorSettings.defaults();

    assertThat(CudaCommunicatorParts.hostPathRefusal(topology(2), defaults, 64 * MIB)).isEmpty();
    assertThat(CudaCommunicatorParts.hostPathRefusal(topology(4), defaults, 64 * MIB)).isEmpty();
    assertThat(CudaCommunicatorParts.hostPathRefusal(topology(8), defaults, 64 * MIB))
        .isEqualTo(
            "measured to pay on 2 and 4 ranks of a node, this node has 8"
                + " (GPUCOMM_HOST_PATH=on forces it)");
    assertThat(
            CudaCommunicatorParts.hostPathRefusal(
                topology(8),
                CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "on")),
                64 * MIB))
        .isEmpty();
    assertThat(CudaCommunicatorParts.hostPathRefusal(topology(2), defaults, 32 * MIB))
        .isEqualTo(
            "the peer buffer (33554432 bytes) is below GPUCOMM_HOST_PATH_MIN_BYTES (67108864)");
    assertThat(
            CudaCommunicatorParts.hostPathRefusal(
                topology(2),
                CudaCommunicatorSettings.from(Map.of("GPUCOMM_HOST_PATH", "off")),
                64 * MIB))
        .isEqualTo("turned off (GPUCOMM_HOST_PATH=off)");
  }

  private static RankTopology topology(int world) {
    return new RankTopology(0, world, 0, world);
  }
}
