package dev.gpucomm.runtime.collective.cuda;

/**
 * How the peer-memory kernels run: the fixed grid (thread blocks) of each kernel family, the size
 * up to which {@code oneshot} uses the Lamport kernel, and the most pipeline chunks per call.
 */
public record KernelShape(
    int oneShotBlocks,
    int twoShotBlocks,
    int lamportBlocks,
    long lamportMaxBytes,
    int pipelineChunks) {
  /** Most pipeline chunks: flag values keep the chunk number in 16 bits, and each costs a fence. */
  public static final int MAX_PIPELINE_CHUNKS = 64;

  public KernelShape {
    CudaCommunicatorSettings.checkBlocks("oneshot blocks", oneShotBlocks);
    CudaCommunicatorSettings.checkBlocks("twoshot blocks", twoShotBlocks);
    CudaCommunicatorSettings.checkBlocks("lamport blocks", lamportBlocks);
    if (lamportMaxBytes < 0) {
      throw new IllegalArgumentException(
          "lamport size limit must not be negative, got " + lamportMaxBytes);
    }
    if (pipelineChunks < 1 || pipelineChunks > MAX_PIPELINE_CHUNKS) {
      throw new IllegalArgumentException(
          "pipeline chunks must be between 1 and "
              + MAX_PIPELINE_CHUNKS
              + ", got "
              + pipelineChunks);
    }
  }

  /** The same shape with every grid at most {@code multiprocessors} (all blocks co-resident). */
  KernelShape fittedTo(int multiprocessors) {
    return new KernelShape(
        Math.min(oneShotBlocks, multiprocessors),
        Math.min(twoShotBlocks, multiprocessors),
        Math.min(lamportBlocks, multiprocessors),
        lamportMaxBytes,
        pipelineChunks);
  }
}
