package dev.gpucomm.runtime.collective.cuda;

/**
 * How the peer-memory kernels run: the fixed grid (thread blocks) of each kernel family (both
 * Lamport kernels share one), the sizes up to which {@code oneshot} and {@code twoshot} use their
 * flag-free Lamport kernels, and the most pipeline chunks per one-shot and two-shot call.
 */
public record KernelShape(
    int oneShotBlocks,
    int twoShotBlocks,
    int lamportBlocks,
    long lamportMaxBytes,
    long lamport2MaxBytes,
    int oneShotChunks,
    int twoShotChunks) {
  /** Most pipeline chunks: flag values keep the chunk number in 16 bits, and each costs a fence. */
  public static final int MAX_PIPELINE_CHUNKS = 64;

  public KernelShape {
    CudaCommunicatorSettings.checkBlocks("oneshot blocks", oneShotBlocks);
    CudaCommunicatorSettings.checkBlocks("twoshot blocks", twoShotBlocks);
    CudaCommunicatorSettings.checkBlocks("lamport blocks", lamportBlocks);
    if (lamportMaxBytes < 0 || lamport2MaxBytes < 0) {
      throw new IllegalArgumentException(
          "lamport size limits must not be negative, got "
              + lamportMaxBytes
              + " and "
              + lamport2MaxBytes);
    }
    for (int chunks : new int[] {oneShotChunks, twoShotChunks}) {
      if (chunks < 1 || chunks > MAX_PIPELINE_CHUNKS) {
        throw new IllegalArgumentException(
            "pipeline chunks must be between 1 and " + MAX_PIPELINE_CHUNKS + ", got " + chunks);
      }
    }
  }

  /** The same shape with every grid at most {@code multiprocessors} (all blocks co-resident). */
  KernelShape fittedTo(int multiprocessors) {
    return new KernelShape(
        Math.min(oneShotBlocks, multiprocessors),
        Math.min(twoShotBlocks, multiprocessors),
        Math.min(lamportBlocks, multiprocessors),
        lamportMaxBytes,
        lamport2MaxBytes,
        oneShotChunks,
        twoShotChunks);
  }
}
