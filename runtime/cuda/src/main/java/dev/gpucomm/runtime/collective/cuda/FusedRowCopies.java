package dev.gpucomm.runtime.collective.cuda;

/**
 * How many blocks of {@code fused_lamport_spread} finish each row of a fused one-shot call on one
 * or two ranks: every one of them waits for the whole row from both ranks, adds it up and takes its
 * norm, and stores its share of the row's two outputs. Their sums are the same floats in the same
 * order, so they agree bit for bit without meeting, and the row's stores and dependent arithmetic
 * are split over several multiprocessors; the price is that each reads both ranks' copies of the
 * whole row. On more ranks the kernel keeps one block a row.
 *
 * <p>By default ({@link #AUTOMATIC}) two blocks take each row where the world is two ranks and the
 * call has at least {@value #MIN_AUTOMATIC_ROWS} rows but no more than half the grid's blocks. On
 * two H200s (8192 bf16 a row) that took 0.07-0.1 µs off at 8-64 rows in {@code gpucomm bench}, and
 * up to 0.1 µs in {@code bench/probes/fused-residency.cu}; the probe's own two-rank copy of the
 * kernel took 0.2-0.3 µs longer with two blocks a row at 1-4 rows, where one block a row already
 * leaves most of the grid idle, and more than two blocks a row gained nothing. A fixed count (the
 * {@code GPUCOMM_FUSED_ROW_COPIES} setting) applies to every call on one or two ranks whose rows
 * fit it, capped so that no block finishes two rows: 1 keeps one block a row.
 */
record FusedRowCopies(int setting) {
  /** The setting that lets the call's shape decide. */
  static final int AUTOMATIC = 0;

  /** The most blocks a row may have. */
  static final int MAX_COPIES = 8;

  /** The fewest rows of a call that the automatic setting gives two blocks a row. */
  static final long MIN_AUTOMATIC_ROWS = 8;

  static final int VECTORS_PER_THREAD = FusionKernels.SPREAD_ROW_VECTORS;

  FusedRowCopies {
    if (setting < AUTOMATIC || setting > MAX_COPIES) {
      throw new IllegalArgumentException(
          "row copies must be automatic (0) or 1 to " + MAX_COPIES + ", got " + setting);
    }
  }

  /**
   * The blocks that finish each row of a call of {@code tokens} rows of {@code rowVectors} 16-byte
   * vectors on a grid of {@code gridBlocks} blocks of {@code threads} threads among {@code world}
   * ranks: 1 on more than two ranks or where the row does not fit the block's registers (the kernel
   * then keeps one), and never so many that a block would finish more than one row.
   */
  int copies(int world, long tokens, long rowVectors, int gridBlocks, int threads) {
    if (world > 2 || tokens < 1 || rowVectors > (long) VECTORS_PER_THREAD * threads) {
      return 1;
    }
    if (setting == AUTOMATIC) {
      return world == 2 && tokens >= MIN_AUTOMATIC_ROWS && 2 * tokens <= gridBlocks ? 2 : 1;
    }
    return (int) Math.max(1, Math.min(setting, gridBlocks / tokens));
  }
}
