package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import org.junit.jupiter.api.Test;

/** The sizes of nccl-tests' sweep flags, walked and rounded as nccl-tests' common.cu does. */
class NcclTestsSizesTest {
  @Test
  void aFactorSweepFromEightBytesToEightGibibytesDoublesThirtyTimes() {
    NcclTestsSizes sweep = new NcclTestsSizes(8, 8L << 30, 2, NcclTestsSizes.DEFAULT_STEP_BYTES);

    assertThat(sweep.sizes()).hasSize(31).startsWith(8L, 16L, 32L).endsWith(4L << 30, 8L << 30);
  }

  @Test
  void aFactorSweepStopsAtTheLastSizeNotAboveTheMaximum() {
    assertThat(new NcclTestsSizes(3, 100, 4, 1).sizes()).containsExactly(3L, 12L, 48L);
  }

  @Test
  void aBoundedWalkStopsOneSizePastItsBound() {
    NcclTestsSizes halfABillion = new NcclTestsSizes(16, 8L << 30, 1, 16);

    assertThat(halfABillion.sizes(4)).containsExactly(16L, 32L, 48L, 64L, 80L);
    assertThat(new NcclTestsSizes(3, 100, 4, 1).sizes(4)).containsExactly(3L, 12L, 48L);
  }

  @Test
  void withoutAFactorTheSizesGrowByTheStep() {
    assertThat(new NcclTestsSizes(1L << 20, 4L << 20, 1, 1L << 20).sizes())
        .containsExactly(1L << 20, 2L << 20, 3L << 20, 4L << 20);
  }

  @Test
  void theDefaultsAreOneSizeOfThirtyTwoMebibytes() {
    NcclTestsSizes defaults =
        new NcclTestsSizes(
            NcclTestsSizes.DEFAULT_MIN_BYTES,
            NcclTestsSizes.DEFAULT_MAX_BYTES,
            NcclTestsSizes.DEFAULT_STEP_FACTOR,
            NcclTestsSizes.DEFAULT_STEP_BYTES);

    assertThat(defaults.sizes()).containsExactly(32L << 20);
  }

  @Test
  void countsRoundDownToTheTypeAndForGathersAndScattersToTheRanks() {
    // 1000 B of bf16 is 500 elements; split over 3 ranks, 166 each (nccl-tests' count / nranks).
    assertThat(NcclTestsSizes.count(1000, Collective.ALLREDUCE, DType.BF16, 3)).isEqualTo(500);
    assertThat(NcclTestsSizes.count(1001, Collective.ALLREDUCE, DType.FP32, 3)).isEqualTo(250);
    assertThat(NcclTestsSizes.count(1000, Collective.ALLGATHER, DType.BF16, 3)).isEqualTo(166);
    assertThat(NcclTestsSizes.count(1000, Collective.REDUCESCATTER, DType.BF16, 3)).isEqualTo(166);
    assertThat(NcclTestsSizes.count(1000, Collective.BROADCAST, DType.FP16, 3)).isEqualTo(500);
  }

  @Test
  void theMessagePerRankPrintsBackAsNcclTestsSize() {
    // nccl-tests prints max(send, receive bytes): for all-gather, (count / nranks) × nranks × 2.
    long perRank = NcclTestsSizes.bytesPerRank(1000, Collective.ALLGATHER, DType.BF16, 3);

    assertThat(perRank).isEqualTo(332);
    assertThat(new CollectiveShape(Collective.ALLGATHER, perRank, 3).algorithmBytes())
        .isEqualTo(996);
  }

  @Test
  void sweepsThatCannotEndAreRefusedNamingTheFlag() {
    assertThatThrownBy(() -> new NcclTestsSizes(64, 8, 2, 1))
        .hasMessage("-e: 8 is below the minimum size 64 (-b)");
    assertThatThrownBy(() -> new NcclTestsSizes(8, 64, 1, 0))
        .hasMessage("-i: must be >= 1 when -f is 1 and -e is above -b, got 0");
    assertThatThrownBy(() -> new NcclTestsSizes(8, 64, 0, 1)).hasMessage("-f: must be >= 1, got 0");
    assertThatThrownBy(() -> new NcclTestsSizes(1024, 1024, 1, -5))
        .as("a step that shrinks the size is refused even where only one size runs")
        .hasMessage("-i: must be >= 0, got -5");
  }

  @Test
  void oneSizeWithNoStepIsOneSize() {
    assertThat(new NcclTestsSizes(1024, 1024, 1, 0).sizes()).containsExactly(1024L);
  }
}
