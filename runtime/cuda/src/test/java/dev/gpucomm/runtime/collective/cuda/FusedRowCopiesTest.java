package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FusedRowCopiesTest {
  /** Rows of 8192 bf16: 1024 vectors, held by 512 threads in registers. */
  private static final long ROW_VECTORS = 1024;

  private static final int GRID = 132;
  private static final int THREADS = 512;

  private static final FusedRowCopies AUTOMATIC = new FusedRowCopies(FusedRowCopies.AUTOMATIC);

  @ParameterizedTest(name = "world {0}, {1} rows: {2} blocks a row")
  @CsvSource({
    // two ranks: two blocks a row from 8 rows while every row still gets two blocks
    "2, 1, 1",
    "2, 4, 1",
    "2, 7, 1",
    "2, 8, 2",
    "2, 16, 2",
    "2, 32, 2",
    "2, 66, 2",
    "2, 67, 1",
    "2, 256, 1",
    // other worlds were not measured: one block a row
    "1, 32, 1",
    "4, 32, 1",
    "8, 16, 1",
  })
  void twoRanksGiveTwoBlocksToEachRowOfCallsFromEightRowsToHalfTheGrid(
      int world, long tokens, int expected) {
    assertThat(AUTOMATIC.copies(world, tokens, ROW_VECTORS, GRID, THREADS)).isEqualTo(expected);
  }

  @Test
  void aRowThatDoesNotFitTheRegistersKeepsOneBlock() {
    // 8200 fp32 elements: 2050 vectors, more than 4 per thread of 512
    assertThat(AUTOMATIC.copies(2, 32, 2050, GRID, THREADS)).isEqualTo(1);
    assertThat(new FusedRowCopies(4).copies(2, 32, 2050, GRID, THREADS)).isEqualTo(1);
    // 8192 fp32 elements: 2048 vectors, 4 per thread
    assertThat(AUTOMATIC.copies(2, 32, 2048, GRID, THREADS)).isEqualTo(2);
    // 4100 fp32 elements: 1025 vectors on 512 threads still fit (3 a thread at most)
    assertThat(AUTOMATIC.copies(2, 32, 1025, GRID, THREADS)).isEqualTo(2);
  }

  @Test
  void aFixedCountAppliesOnOneOrTwoRanksButNeverGivesABlockTwoRows() {
    FusedRowCopies four = new FusedRowCopies(4);
    assertThat(four.copies(1, 13, 17, GRID, 32)).isEqualTo(4);
    assertThat(four.copies(2, 32, ROW_VECTORS, GRID, THREADS)).isEqualTo(4);
    assertThat(four.copies(4, 32, ROW_VECTORS, GRID, THREADS)).isEqualTo(1);
    assertThat(four.copies(8, 8, ROW_VECTORS, GRID, THREADS)).isEqualTo(1);
    assertThat(four.copies(2, 40, ROW_VECTORS, GRID, THREADS)).isEqualTo(3);
    assertThat(four.copies(2, 100, ROW_VECTORS, GRID, THREADS)).isEqualTo(1);
    assertThat(four.copies(2, 1000, ROW_VECTORS, GRID, THREADS)).isEqualTo(1);
    assertThat(new FusedRowCopies(1).copies(2, 32, ROW_VECTORS, GRID, THREADS)).isEqualTo(1);
  }

  @Test
  void theSettingIsAutomaticOrOneToEight() {
    assertThatThrownBy(() -> new FusedRowCopies(9))
        .hasMessage("row copies must be automatic (0) or 1 to 8, got 9");
    assertThatThrownBy(() -> new FusedRowCopies(-1))
        .hasMessage("row copies must be automatic (0) or 1 to 8, got -1");
  }
}
