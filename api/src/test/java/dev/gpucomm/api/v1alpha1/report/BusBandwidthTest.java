package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gpucomm.api.v1alpha1.Collective;
import org.junit.jupiter.api.Test;

class BusBandwidthTest {
  @Test
  void factorsFollowNcclTests() {
    assertThat(BusBandwidth.factor(Collective.ALLREDUCE, 4)).isEqualTo(1.5);
    assertThat(BusBandwidth.factor(Collective.ALLREDUCE, 8)).isEqualTo(1.75);
    assertThat(BusBandwidth.factor(Collective.ALLREDUCE, 1)).isZero();
    assertThat(BusBandwidth.factor(Collective.ALLGATHER, 4)).isEqualTo(0.75);
    assertThat(BusBandwidth.factor(Collective.REDUCESCATTER, 2)).isEqualTo(0.5);
    assertThat(BusBandwidth.factor(Collective.BROADCAST, 8)).isEqualTo(1);
    // gpucomm's collective permute gathers every rank's piece, so it moves what all-gather does
    assertThat(BusBandwidth.factor(Collective.COLLECTIVEPERMUTE, 8)).isEqualTo(0.875);
  }

  @Test
  void reproducesTheNcclTestsBusBandwidthOfTheH200Anchors() {
    long sixtyFourMb = 64L << 20;
    // all_reduce_perf -G 10: TP4 64 MB in 319.0 µs → busbw 316; TP2 in 232.7 µs → busbw 288.
    assertThat(BusBandwidth.busBandwidthGBps(Collective.ALLREDUCE, 4, sixtyFourMb, 319.0))
        .isCloseTo(316, within(0.5));
    assertThat(BusBandwidth.busBandwidthGBps(Collective.ALLREDUCE, 2, sixtyFourMb, 232.7))
        .isCloseTo(288, within(0.5));
    assertThat(BusBandwidth.algBandwidthGBps(1_000_000, 1.0)).isEqualTo(1000.0);
  }

  @Test
  void aGathersSizeIsTheWholeGatheredBufferAsInNcclTests() {
    long perRank = 8L << 20;
    // all_gather_perf on 4 ranks reports size 32 MiB for 8 MiB per rank
    assertThat(BusBandwidth.ncclTestsBytes(Collective.ALLGATHER, 4, perRank))
        .isEqualTo(4 * perRank);
    assertThat(BusBandwidth.ncclTestsBytes(Collective.REDUCESCATTER, 4, perRank))
        .isEqualTo(4 * perRank);
    assertThat(BusBandwidth.ncclTestsBytes(Collective.COLLECTIVEPERMUTE, 4, perRank))
        .isEqualTo(4 * perRank);
    assertThat(BusBandwidth.ncclTestsBytes(Collective.ALLREDUCE, 4, perRank)).isEqualTo(perRank);
    assertThat(BusBandwidth.busBandwidthOfMessage(Collective.ALLGATHER, 4, perRank, 100.0))
        .isCloseTo(4 * perRank / 100e3 * 0.75, within(1e-9));
  }
}
