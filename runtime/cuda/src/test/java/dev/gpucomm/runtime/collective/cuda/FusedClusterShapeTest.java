package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which fused one-shot calls the cluster kernel takes on an H100's grid of 132 blocks, and how it
 * cuts them.
 */
class FusedClusterShapeTest {
  private static final FusedClusterShape H100 = new FusedClusterShape(132);

  /** Vectors of a row of hidden 8192 bf16 (the decode shapes of issue #24). */
  private static final long BF16_8192 = 8192 * 2 / 16;

  @ParameterizedTest(name = "{0} tokens take clusters of {1} on {2} blocks of {3} threads")
  @CsvSource({
    // few rows: the largest cluster, 128 vectors (one per thread) per block
    "1, 8, 128, 128",
    "4, 8, 128, 128",
    "16, 8, 128, 128",
    // more rows than the grid holds in clusters of 8: smaller clusters, longer slices
    "17, 4, 132, 256",
    "32, 4, 132, 256",
    "33, 4, 132, 256",
    "34, 2, 132, 256",
    "64, 2, 132, 256",
    "66, 2, 132, 256",
  })
  void decodeCallsOfHidden8192SplitEachRowOverAClusterThatTheGridHoldsForEveryRow(
      long tokens, int clusterSize, int blocks, int threads) {
    int size = H100.clusterSize(tokens, BF16_8192);

    assertThat(size).isEqualTo(clusterSize);
    assertThat(H100.blocks(size)).isEqualTo(blocks);
    assertThat(FusedClusterShape.threads(BF16_8192, size)).isEqualTo(threads);
    assertThat(tokens * size).isLessThanOrEqualTo(H100.blocks(size));
  }

  @Test
  void callsOfAsManyRowsAsTheGridHasBlocksStayOnTheSpreadKernel() {
    // A cluster of one block is the spread kernel's row.
    assertThat(H100.clusterSize(67, BF16_8192)).isZero();
    assertThat(H100.clusterSize(128, BF16_8192)).isZero();
    assertThat(H100.clusterSize(256, BF16_8192)).isZero();
  }

  @ParameterizedTest(name = "hidden {0} of {1}-byte elements: clusters of {2}")
  @CsvSource({
    // rows too short for two slices of 128 vectors
    "1024, 2, 0",
    "64, 4, 0",
    // an odd number of vectors cannot be split
    "4100, 4, 0",
    // as large a cluster as divides the row into slices of at least 128 vectors
    "1024, 4, 2",
    "2048, 2, 2",
    "4096, 2, 4",
    "8192, 4, 8",
    "16384, 2, 8",
    "8320, 2, 8",
    "65536, 2, 8",
    // slices too long for the registers of one block (2050 vectors split only in two)
    "8200, 4, 0",
    "131072, 2, 0",
  })
  void aSingleRowTakesTheLargestClusterThatCutsItIntoEqualSlicesOfEnoughVectors(
      int hidden, int elementBytes, int clusterSize) {
    long rowVectors = (long) hidden * elementBytes / 16;

    int size = H100.clusterSize(1, rowVectors);

    assertThat(size).isEqualTo(clusterSize);
    if (size > 0) {
      long slice = rowVectors / size;
      assertThat(slice * size).isEqualTo(rowVectors);
      assertThat(slice).isBetween((long) FusedClusterShape.MIN_SLICE_VECTORS, 1024L);
      assertThat(FusedClusterShape.threads(rowVectors, size) * 4L).isGreaterThanOrEqualTo(slice);
    }
  }

  @Test
  void aSliceThatIsNotWholeWarpsGetsItsLastWarpAnyway() {
    // hidden 8320 bf16: 1040 vectors, 260 per block of a cluster of 4
    assertThat(FusedClusterShape.threads(1040, 4)).isEqualTo(256);
    // hidden 2176 bf16: 272 vectors, 136 per block of a cluster of 2
    assertThat(FusedClusterShape.threads(272, 2)).isEqualTo(160);
  }

  @Test
  void aGridLimitedToFewBlocksTakesOnlyClustersItHolds() {
    FusedClusterShape limited = new FusedClusterShape(6);

    assertThat(limited.clusterSize(1, BF16_8192)).isEqualTo(4);
    assertThat(limited.blocks(4)).isEqualTo(4);
    assertThat(limited.clusterSize(3, BF16_8192)).isEqualTo(2);
    assertThat(limited.blocks(2)).isEqualTo(6);
    assertThat(new FusedClusterShape(1).clusterSize(1, BF16_8192)).isZero();
    assertThatThrownBy(() -> new FusedClusterShape(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
