package dev.gpucomm.runtime.collective.cuda;

/**
 * The grid of one fused Lamport two-shot call ({@code fused_lamport2}, and {@code
 * fused_lamport2_own} where {@link #takesOwnRows} says so): the communicator's fixed grid, or, for
 * a call of more rows than that grid has blocks, twice the blocks with half the threads, two to a
 * multiprocessor, so that each block normalizes half as many rows (one each up to twice the fixed
 * grid's blocks). The wide grid runs only where a row still fits the registers of the narrower
 * block, which the kernel's rows-in-registers path needs, where the fixed block has more than one
 * warp to halve, and where the communicator may launch that many blocks; two such blocks always fit
 * one multiprocessor (at most 256 threads of at most 128 registers each), so the whole grid stays
 * resident, as the Lamport waits need.
 *
 * <p>On two H100s at 256 rows of 8192 bf16 the kernel took 19.00 µs a call on the wide grid against
 * 19.88 on the fixed one; at 64 and 128 rows, where every row has a block of its own on either
 * grid, the wide one was 0.75–0.9 µs slower, which is why it starts only above the fixed grid's
 * blocks.
 */
record FusedTwoShotGrid(int blocks, int threads) {
  static final int VECTORS_PER_THREAD = FusionKernels.SPREAD_ROW_VECTORS;

  /** fusion.cu's LAMPORT2_MAX_BLOCKS: the per-block state the kernel keeps. */
  static final int MAX_BLOCKS = 2 * FusedPeerAllReduce.MAX_BLOCKS;

  FusedTwoShotGrid {
    if (blocks < 1
        || blocks > MAX_BLOCKS
        || threads < 32
        || threads > FusionKernels.MAX_THREADS
        || threads % 32 != 0) {
      throw new IllegalArgumentException(
          "a fused two-shot grid needs 1-%d blocks of 1-%d whole warps, got %d of %d threads"
              .formatted(MAX_BLOCKS, FusionKernels.MAX_THREADS / 32, blocks, threads));
    }
  }

  /**
   * Whether a call of {@code tokens} rows of {@code rowVectors} vectors on this grid, across {@code
   * world} ranks, runs {@code fused_lamport2_own}: one or two ranks, whose slices are whole rows
   * (an even token count on two), no block with two rows and more than half the blocks with one,
   * and a row that fits its block's registers. The row's block then sums the rank's own rows
   * itself, where {@code fused_lamport2} spreads the reduce over the grid and sends the own slice
   * through the rank's own slots and back.
   *
   * <p>On two H100s (tokens × 8192 bf16, CUDA-graph medians) it took 9.5 / 11.0 µs a call at 96 /
   * 128 rows on the fixed grid against 10.0 / 11.9, and 14.9 / 17.6 at 192 / 256 rows on the wide
   * grid against 15.8 / 19.3. The probe ({@code bench/probes/fused-twoshot.cu}) found it 0.1–0.3 µs
   * slower where half the blocks idle (32, 64 rows) and 1.8–3.5 µs slower with two rows on a block.
   * On four H100s it was 1.6–2.2 µs slower at 96–256 rows: a quarter of the rows per rank leaves
   * the reduce on a quarter of the blocks, each waiting for three copies.
   */
  boolean takesOwnRows(long tokens, long rowVectors, int world) {
    return world <= 2
        && tokens % world == 0
        && tokens <= blocks
        && 2 * tokens > blocks
        && rowVectors <= (long) VECTORS_PER_THREAD * threads;
  }

  /**
   * The grid of a call of {@code tokens} rows of {@code rowVectors} 16-byte vectors, given the
   * fixed grid ({@code fixedBlocks} of {@code fixedThreads}) and the most blocks the communicator
   * may launch ({@code mostBlocks}; the fixed grid's count keeps every call on it).
   */
  static FusedTwoShotGrid of(
      long tokens, long rowVectors, int fixedBlocks, int fixedThreads, int mostBlocks) {
    int halfThreads = Math.max(32, fixedThreads / 2 / 32 * 32);
    boolean wide =
        tokens > fixedBlocks
            && 2 * fixedBlocks <= Math.min(MAX_BLOCKS, mostBlocks)
            && halfThreads < fixedThreads
            && rowVectors <= (long) VECTORS_PER_THREAD * halfThreads;
    return wide
        ? new FusedTwoShotGrid(2 * fixedBlocks, halfThreads)
        : new FusedTwoShotGrid(fixedBlocks, fixedThreads);
  }
}
