package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which fused two-shot calls run on the wide grid on an H100's fixed grid of 132 blocks. */
class FusedTwoShotGridTest {
  private static final int H100_BLOCKS = 132;

  /** The most blocks of a communicator without a block limit and with the wide grid on. */
  private static final int UNLIMITED =
      FusedPeerAllReduce.twoShotMostBlocks(CudaCommunicatorSettings.defaults(), H100_BLOCKS);

  @ParameterizedTest(name = "{0} rows of hidden {1} {2}: {3} blocks of {4} threads")
  @CsvSource({
    // the decode shapes of issue #24: up to 132 rows each row has a block on the fixed grid
    "32, 8192, bf16, 132, 512",
    "132, 8192, bf16, 132, 512",
    // more rows than blocks: two blocks of half the threads per multiprocessor
    "133, 8192, bf16, 264, 256",
    "256, 8192, bf16, 264, 256",
    // shorter rows have fewer threads on either grid
    "200, 1024, fp16, 264, 64",
    "512, 4096, bf16, 264, 256",
    // rows longer than half the threads hold in registers stay on the fixed grid
    "256, 16384, bf16, 132, 512",
    "200, 4100, fp32, 132, 512",
    // rows of one warp cannot be halved
    "1000, 256, bf16, 132, 32",
  })
  void callsOfMoreRowsThanTheFixedGridHasBlocksRunOnTwiceTheBlocksWhereRowsFit(
      long tokens, int hidden, String dtypeName, int blocks, int threads) {
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    int fixedThreads = FusionKernels.threads(hidden, dtype);
    long rowVectors = (long) hidden * dtype.bytes() / 16;

    FusedTwoShotGrid grid =
        FusedTwoShotGrid.of(tokens, rowVectors, H100_BLOCKS, fixedThreads, UNLIMITED);

    assertThat(grid).isEqualTo(new FusedTwoShotGrid(blocks, threads));
    assertThat(rowVectors)
        .isLessThanOrEqualTo((long) FusedTwoShotGrid.VECTORS_PER_THREAD * grid.threads());
  }

  @Test
  void turnedOffEveryCallRunsOnTheFixedGrid() {
    CudaCommunicatorSettings off =
        CudaCommunicatorSettings.from(Map.of("GPUCOMM_FUSED_WIDE_GRID", "off"));
    int mostBlocks = FusedPeerAllReduce.twoShotMostBlocks(off, H100_BLOCKS);

    assertThat(FusedTwoShotGrid.of(256, 1024, H100_BLOCKS, 512, mostBlocks))
        .isEqualTo(new FusedTwoShotGrid(H100_BLOCKS, 512));
  }

  @Test
  void aCommunicatorWithABlockLimitKeepsToIt() {
    // a communicator sharing the GPU with matmuls (maxBlocks 16) runs 16 blocks, never 32
    CudaCommunicatorSettings limited = CudaCommunicatorSettings.defaults().withMaxBlocks(16);
    int fixedBlocks = FusedPeerAllReduce.blocks(limited, H100_BLOCKS);
    int mostBlocks = FusedPeerAllReduce.twoShotMostBlocks(limited, fixedBlocks);

    assertThat(fixedBlocks).isEqualTo(16);
    assertThat(FusedTwoShotGrid.of(256, 1024, fixedBlocks, 512, mostBlocks))
        .isEqualTo(new FusedTwoShotGrid(16, 512));
  }

  @Test
  void aBlockLimitOfTwiceTheFixedGridStillLetsItWiden() {
    // a GPU of 60 multiprocessors limited to 120 blocks: the fixed grid is 60, the wide one fits
    CudaCommunicatorSettings limited = CudaCommunicatorSettings.defaults().withMaxBlocks(120);
    int fixedBlocks = FusedPeerAllReduce.blocks(limited, 60);
    int mostBlocks = FusedPeerAllReduce.twoShotMostBlocks(limited, fixedBlocks);

    assertThat(FusedTwoShotGrid.of(61, 1024, fixedBlocks, 512, mostBlocks))
        .isEqualTo(new FusedTwoShotGrid(120, 256));
  }

  @Test
  void theWideGridIsTwiceTheFixedOneWhateverItsSize() {
    // a GPU of fewer multiprocessors than 132
    assertThat(FusedTwoShotGrid.of(109, 1024, 108, 512, UNLIMITED))
        .isEqualTo(new FusedTwoShotGrid(216, 256));
    assertThat(FusedTwoShotGrid.of(108, 1024, 108, 512, UNLIMITED))
        .isEqualTo(new FusedTwoShotGrid(108, 512));
  }

  @ParameterizedTest(name = "{0} rows of hidden {1} {2} across {3} ranks: own rows {4}")
  @CsvSource({
    // more than half the fixed grid's 132 blocks have a row, none has two
    "67, 8192, bf16, 1, true",
    "96, 8192, bf16, 2, true",
    "132, 8192, bf16, 2, true",
    // on the wide grid of 264 blocks
    "256, 8192, bf16, 2, true",
    "200, 1024, fp16, 2, true",
    // more than two ranks: each rank's own rows are too few blocks' work
    "132, 8192, bf16, 4, false",
    "256, 8192, bf16, 8, false",
    // half the blocks idle
    "66, 8192, bf16, 2, false",
    "32, 8192, bf16, 2, false",
    // slices that are not whole rows
    "97, 8192, bf16, 2, false",
    "130, 8192, bf16, 4, false",
    // two rows on some blocks: more rows than even the wide grid's blocks, or a fixed grid
    "300, 1024, bf16, 2, false",
    "256, 16384, bf16, 2, false",
  })
  void callsWhoseSlicesAreWholeRowsOfTheirOwnBlocksTakeTheirOwnRows(
      long tokens, int hidden, String dtypeName, int world, boolean ownRows) {
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    long rowVectors = (long) hidden * dtype.bytes() / 16;
    FusedTwoShotGrid grid =
        FusedTwoShotGrid.of(
            tokens, rowVectors, H100_BLOCKS, FusionKernels.threads(hidden, dtype), UNLIMITED);

    assertThat(grid.takesOwnRows(tokens, rowVectors, world)).isEqualTo(ownRows);
  }

  @Test
  void gridsBeyondTheKernelsPerBlockStateOrBlockSizeAreRefused() {
    assertThatThrownBy(() -> new FusedTwoShotGrid(FusedTwoShotGrid.MAX_BLOCKS + 1, 256))
        .hasMessage(
            "a fused two-shot grid needs 1-264 blocks of 1-16 whole warps, got 265 of 256 threads");
    assertThatThrownBy(() -> new FusedTwoShotGrid(1, 48)).hasMessageContaining("got 1 of 48");
    assertThatThrownBy(() -> new FusedTwoShotGrid(1, 1024)).hasMessageContaining("got 1 of 1024");
  }
}
