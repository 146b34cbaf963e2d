package dev.gpucomm.runtime.collective.cuda;

/**
 * How the peer-memory kernels run: the fixed grid (thread blocks) of each kernel family (both
 * Lamport kernels share one), the sizes up to which {@code oneshot} and {@code twoshot} use their
 * flag-free Lamport kernels, the most pipeline chunks per one-shot and two-shot call, and the sizes
 * from which {@code oneshot} and {@code twoshot} run their warp-specialized kernels.
 */
public record KernelShape(
    int oneShotBlocks,
    int twoShotBlocks,
    int lamportBlocks,
    long lamportMaxBytes,
    long lamport2MaxBytes,
    int oneShotChunks,
    int twoShotChunks,
    long oneShotWsMinBytes,
    long twoShotWsMinBytes) {
  /** Most pipeline chunks: flag values keep the chunk number in 16 bits, and each costs a fence. */
  public static final int MAX_PIPELINE_CHUNKS = 64;

  public KernelShape {
    CudaCommunicatorSettings.checkBlocks("oneshot blocks", oneShotBlocks);
    CudaCommunicatorSettings.checkBlocks("twoshot blocks", twoShotBlocks);
    CudaCommunicatorSettings.checkBlocks("lamport blocks", lamportBlocks);
    checkSizeLimits("lamport", lamportMaxBytes, lamport2MaxBytes);
    checkSizeLimits("warp-specialized", oneShotWsMinBytes, twoShotWsMinBytes);
    for (int chunks : new int[] {oneShotChunks, twoShotChunks}) {
      if (chunks < 1 || chunks > MAX_PIPELINE_CHUNKS) {
        throw new IllegalArgumentException(
            "pipeline chunks must be between 1 and " + MAX_PIPELINE_CHUNKS + ", got " + chunks);
      }
    }
  }

  private static void checkSizeLimits(String kernels, long oneShot, long twoShot) {
    if (oneShot < 0 || twoShot < 0) {
      throw new IllegalArgumentException(
          kernels + " size limits must not be negative, got " + oneShot + " and " + twoShot);
    }
  }

  /** The same shape with every grid at most {@code multiprocessors} (all blocks co-resident). */
  KernelShape fittedTo(int multiprocessors) {
    return withGrids(
        Math.min(oneShotBlocks, multiprocessors),
        Math.min(twoShotBlocks, multiprocessors),
        Math.min(lamportBlocks, multiprocessors));
  }

  /**
   * The kernel a one-shot call of {@code bytes} runs: the Lamport kernel up to its limit, the
   * warp-specialized kernel from its limit, the flag kernel in between.
   */
  AllReduceKernels.Variant oneShotKernel(long bytes) {
    if (bytes <= lamportMaxBytes) {
      return AllReduceKernels.Variant.LAMPORT;
    }
    return bytes >= oneShotWsMinBytes
        ? AllReduceKernels.Variant.ONESHOT_WS
        : AllReduceKernels.Variant.ONESHOT;
  }

  /** The kernel a two-shot call of {@code bytes} runs, chosen as for {@link #oneShotKernel}. */
  AllReduceKernels.Variant twoShotKernel(long bytes) {
    if (bytes <= lamport2MaxBytes) {
      return AllReduceKernels.Variant.LAMPORT2;
    }
    return bytes >= twoShotWsMinBytes
        ? AllReduceKernels.Variant.TWOSHOT_WS
        : AllReduceKernels.Variant.TWOSHOT;
  }

  /** The grid of a kernel: the warp-specialized kernels share their flag kernel's flag rows. */
  int blocks(AllReduceKernels.Variant variant) {
    return switch (variant) {
      case ONESHOT, ONESHOT_WS, ONESHOT_WSH, ONESHOT_STREAM -> oneShotBlocks;
      case TWOSHOT, TWOSHOT_WS, TWOSHOT_WSH -> twoShotBlocks;
      case LAMPORT, LAMPORT2 -> lamportBlocks;
    };
  }

  /** The most pipeline chunks of a kernel's call (the Lamport kernels do not cut calls). */
  int chunks(AllReduceKernels.Variant variant) {
    return switch (variant) {
      case TWOSHOT, TWOSHOT_WS, TWOSHOT_WSH -> twoShotChunks;
      case ONESHOT, ONESHOT_WS, ONESHOT_WSH, ONESHOT_STREAM, LAMPORT, LAMPORT2 -> oneShotChunks;
    };
  }

  /** The same shape with these grids. */
  public KernelShape withGrids(int oneShot, int twoShot, int lamport) {
    return new KernelShape(
        oneShot,
        twoShot,
        lamport,
        lamportMaxBytes,
        lamport2MaxBytes,
        oneShotChunks,
        twoShotChunks,
        oneShotWsMinBytes,
        twoShotWsMinBytes);
  }

  /** The same shape with these pipeline depths. */
  public KernelShape withChunks(int oneShot, int twoShot) {
    return new KernelShape(
        oneShotBlocks,
        twoShotBlocks,
        lamportBlocks,
        lamportMaxBytes,
        lamport2MaxBytes,
        oneShot,
        twoShot,
        oneShotWsMinBytes,
        twoShotWsMinBytes);
  }
}
