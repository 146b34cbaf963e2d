package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How the copy-engine variant cuts a call into pieces that take the parts of a slot in turn. */
class CopyEnginePiecesTest {
  private static final long MIB = 1L << 20;

  /** A 32 MiB slot: four parts of 8 MiB. */
  private static final long DEFAULT_PART = 8 * MIB;

  @Test
  void aLargeCallRunsInWholePartsSoThePushesCycleThroughTheSlot() {
    long bytes = 256 * MIB;

    long piece = CopyEngineGather.pieceBytes(bytes, DEFAULT_PART);

    assertThat(piece).isEqualTo(DEFAULT_PART);
    assertThat(bytes / piece).isEqualTo(32);
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
    // bytes per rank, part bytes of a small peer buffer (64 KiB slot: 16 KiB parts)
    "65552, 16384",
    "16, 16384",
    "4194320, 16384",
    "4194320, 8388608",
    "67108864, 8388608"
  })
  void piecesAreWholeVectorsThatFitAPartAndCoverTheCall(long bytes, long partBytes) {
    long piece = CopyEngineGather.pieceBytes(bytes, partBytes);

    assertThat(piece % 16).isZero();
    assertThat(piece).isPositive().isLessThanOrEqualTo(partBytes);
    assertThat((bytes + piece - 1) / piece * piece).isGreaterThanOrEqualTo(bytes);
  }

  @Test
  void withSmallSlotsACallLargerThanASlotWrapsAroundThePartsSoTheirTokensAreReused() {
    long piece = CopyEngineGather.pieceBytes(65552, 16384);

    long pieces = (65552 + piece - 1) / piece;

    assertThat(pieces).isGreaterThan(CopyEngineGather.PARTS);
  }
}
