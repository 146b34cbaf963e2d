package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How the copy-engine variant cuts its slots into parts and a call into pieces that fit them. */
class CopyEnginePiecesTest {
  private static final long MIB = 1L << 20;

  /** The default largest piece, a quarter of the default 32 MiB slot. */
  private static final long DEFAULT_PART = CudaCommunicatorSettings.DEFAULT_COPY_ENGINE_PIECE_BYTES;

  @Test
  void theDefaultSlotHoldsTwoPiecesOfTheDefaultSizePerSender() {
    assertThat(CopyEngineGather.parts(32 * MIB, DEFAULT_PART)).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource({
    // slot bytes, largest piece, parts: a small slot still double-buffers, tiny pieces are capped
    "65536, 8388608, 2",
    "33554432, 16777216, 2",
    "33554432, 33554432, 2",
    "33554432, 2097152, 16",
    "33554432, 1048576, 16"
  })
  void aSlotHoldsAsManyPiecesAsFitButAtLeastTwoAndAtMostSixteen(
      long slotBytes, long largestPiece, int parts) {
    assertThat(CopyEngineGather.parts(slotBytes, largestPiece)).isEqualTo(parts);
  }

  @Test
  void aLargeCallRunsInWholePartsSoThePushesCycleThroughTheSlot() {
    long bytes = 256 * MIB;

    long piece = CopyEngineGather.pieceBytes(bytes, DEFAULT_PART);

    assertThat(piece).isEqualTo(DEFAULT_PART);
    assertThat(bytes / piece).isEqualTo(16);
  }

  @Test
  void aCallWithinOnePartStillRunsInFourPiecesSoItsPushesOverlapTheDrain() {
    long piece = CopyEngineGather.pieceBytes(16 * MIB, DEFAULT_PART);

    assertThat(piece).isEqualTo(4 * MIB);
  }

  @Test
  void aSmallCallRunsInOnePieceAndPaysForOneRoundOfStreamOperations() {
    assertThat(CopyEngineGather.pieceBytes(64 * 1024, DEFAULT_PART)).isEqualTo(64 * 1024);
    assertThat(CopyEngineGather.pieceBytes(MIB, DEFAULT_PART)).isEqualTo(MIB);
  }

  @ParameterizedTest
  @CsvSource({
    // bytes per rank, largest piece (a 64 KiB slot holds two parts of 32 KiB)
    "65552, 32768",
    "16, 32768",
    "4194320, 32768",
    "4194320, 8388608",
    "67108864, 8388608"
  })
  void piecesAreWholeVectorsNoLargerThanAskedThatCoverTheCall(long bytes, long largestPiece) {
    long piece = CopyEngineGather.pieceBytes(bytes, largestPiece);

    assertThat(piece % 16).isZero();
    assertThat(piece).isPositive().isLessThanOrEqualTo(largestPiece);
    assertThat((bytes + piece - 1) / piece * piece).isGreaterThanOrEqualTo(bytes);
  }

  @Test
  void withSmallSlotsACallLargerThanASlotWrapsAroundThePartsSoTheirTokensAreReused() {
    long slotBytes = 65536;
    int parts = CopyEngineGather.parts(slotBytes, DEFAULT_PART);
    long piece = CopyEngineGather.pieceBytes(65552, slotBytes / parts);

    long pieces = (65552 + piece - 1) / piece;

    assertThat(pieces).isGreaterThan(parts);
  }

  @Test
  void theSumRunsOneBlockPerMultiprocessorUnlessTheCommunicatorIsLimited() {
    CudaCommunicatorSettings whole = CudaCommunicatorSettings.defaults();

    assertThat(CopyEngineGather.sumBlocks(whole, 132)).isEqualTo(132);
    assertThat(CopyEngineGather.sumBlocks(whole.withMaxBlocks(24), 132)).isEqualTo(24);
    assertThat(CopyEngineGather.sumBlocks(whole.withMaxBlocks(160), 132)).isEqualTo(132);
  }

  @Test
  void theFusedGridStaysWithinItsPerBlockArraysAndTheCommunicatorsLimit() {
    CudaCommunicatorSettings whole = CudaCommunicatorSettings.defaults();

    assertThat(FusedPeerAllReduce.blocks(whole, 148)).isEqualTo(FusedPeerAllReduce.MAX_BLOCKS);
    assertThat(FusedPeerAllReduce.blocks(whole, 114)).isEqualTo(114);
    assertThat(FusedPeerAllReduce.blocks(whole.withMaxBlocks(16), 132)).isEqualTo(16);
  }
}
