package dev.gpucomm.runtime.collective.cuda;

/**
 * How {@code fused_lamport_cluster} cuts a fused one-shot call on a fixed grid of {@code
 * gridBlocks}: the cluster of blocks that shares each row, the grid (a whole number of clusters)
 * and the threads of a block, or that the call is left to {@code fused_lamport_spread}.
 *
 * <p>A row is split into equal slices of whole 16-byte vectors, one per block of a cluster, as
 * TensorRT-LLM's fused all-reduce does: clusters start at the portable maximum of eight blocks and
 * halve while the slices would not divide the row or would hold fewer than {@value
 * #MIN_SLICE_VECTORS} vectors (a block of fewer threads finishes no sooner), then halve while the
 * call's rows times the cluster size exceed the grid, so that every row still has its own cluster
 * where the grid allows. A cluster of one block is the spread kernel's row, which it runs instead.
 */
record FusedClusterShape(int gridBlocks) {
  /** The largest cluster every Hopper GPU launches without opting in to larger ones. */
  static final int MAX_CLUSTER_SIZE = 8;

  /** The fewest vectors of a row one block of a cluster takes. */
  static final int MIN_SLICE_VECTORS = 128;

  /** fusion.cu's CLUSTER_THREADS: the most threads of a block of the cluster kernel. */
  static final int MAX_THREADS = 256;

  static final int VECTORS_PER_THREAD = FusionKernels.SPREAD_ROW_VECTORS;

  /** The longest slice a block holds in registers. */
  static final int MAX_SLICE_VECTORS = MAX_THREADS * VECTORS_PER_THREAD;

  FusedClusterShape {
    if (gridBlocks < 1) {
      throw new IllegalArgumentException("the grid needs a block, got " + gridBlocks);
    }
  }

  /**
   * The blocks that share each row of a call of {@code tokens} rows of {@code rowVectors} 16-byte
   * vectors; 0 where the cluster kernel does not take the call.
   */
  int clusterSize(long tokens, long rowVectors) {
    int size = MAX_CLUSTER_SIZE;
    while (size > 1 && (rowVectors % size != 0 || rowVectors / size < MIN_SLICE_VECTORS)) {
      size /= 2;
    }
    while (size > 1 && tokens * size > gridBlocks) {
      size /= 2;
    }
    boolean taken = size > 1 && size <= gridBlocks && rowVectors / size <= MAX_SLICE_VECTORS;
    return taken ? size : 0;
  }

  /** The grid of clusters of {@code clusterSize}: as many whole clusters as the grid holds. */
  int blocks(int clusterSize) {
    return gridBlocks / clusterSize * clusterSize;
  }

  /**
   * Threads of a block: one per vector of its slice, in whole warps, at most {@link #MAX_THREADS}.
   */
  static int threads(long rowVectors, int clusterSize) {
    long slice = rowVectors / clusterSize;
    return (int) Math.min(MAX_THREADS, (slice + 31) / 32 * 32);
  }
}
