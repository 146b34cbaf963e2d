package dev.gpucomm.runtime.collective.cuda;

/**
 * Where things sit inside every rank's peer-memory allocation (the same on all ranks of a node);
 * mirrors {@code struct PeerLayout} in allreduce.cu.
 *
 * <pre>
 * oneshot flags  uint32 [160 blocks][8 ranks]
 * twoshot flags  uint32 [2 barriers][160 blocks][8 ranks]
 * check          uint32 [8]                                 peer-memory write/read check
 * oneshot recv   [2 parity][world][maxBytes]
 * twoshot recv   [2 parity][world][maxBytes / world + 16 · world]
 * scratch        [maxBytes / world + 16 · world]              two-shot reduced slice
 * lamport        [3 slot][world][lamportMaxBytes]             sentinel-filled receive slots
 * </pre>
 *
 * Each algorithm has its own flags and receive areas, so each can run its own fixed grid.
 */
public record PeerMemoryLayout(
    int world,
    long oneshotFlagsOffset,
    long twoshotFlagsOffset,
    long checkOffset,
    long oneshotRecvOffset,
    long oneshotRankStride,
    long twoshotRecvOffset,
    long twoshotRankStride,
    long scratchOffset,
    long lamportOffset,
    long lamportRankStride,
    long totalBytes) {
  public static final int MAX_RANKS = 8;
  public static final int MAX_BLOCKS = CudaCommunicatorSettings.MAX_BLOCKS;
  static final long FLAG_SET_BYTES = (long) MAX_BLOCKS * MAX_RANKS * Integer.BYTES;
  static final long CHECK_BYTES = MAX_RANKS * Integer.BYTES;
  private static final long ALIGNMENT = 256;

  /** The word every Lamport receive slot holds until data lands: two bf16/fp16 -0.0 halves. */
  public static final int LAMPORT_SENTINEL = 0x80008000;

  public static PeerMemoryLayout of(int world, long maxBytes, long lamportMaxBytes) {
    if (world < 1 || world > MAX_RANKS) {
      throw new IllegalArgumentException(
          "peer memory spans 1.." + MAX_RANKS + " ranks of a node, got " + world);
    }
    long oneshotFlagsOffset = 0;
    long twoshotFlagsOffset = align(oneshotFlagsOffset + FLAG_SET_BYTES);
    long checkOffset = align(twoshotFlagsOffset + 2 * FLAG_SET_BYTES);
    long oneshotRecvOffset = align(checkOffset + CHECK_BYTES);
    long oneshotRankStride = align(maxBytes);
    long twoshotRecvOffset = oneshotRecvOffset + 2 * world * oneshotRankStride;
    // The last rank's two-shot slice is the largest: vectors/world plus fewer than world vectors.
    long twoshotRankStride = align(maxBytes / world + 16L * world);
    long scratchOffset = twoshotRecvOffset + 2 * world * twoshotRankStride;
    long lamportOffset = scratchOffset + twoshotRankStride;
    long lamportRankStride = align(Math.max(16, lamportMaxBytes));
    long totalBytes = lamportOffset + 3 * world * lamportRankStride;
    return new PeerMemoryLayout(
        world,
        oneshotFlagsOffset,
        twoshotFlagsOffset,
        checkOffset,
        oneshotRecvOffset,
        oneshotRankStride,
        twoshotRecvOffset,
        twoshotRankStride,
        scratchOffset,
        lamportOffset,
        lamportRankStride,
        totalBytes);
  }

  private static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  /** The kernel's {@code PeerLayout} struct, in field order. */
  public long[] kernelStruct() {
    return new long[] {
      oneshotFlagsOffset,
      twoshotFlagsOffset,
      checkOffset,
      oneshotRecvOffset,
      oneshotRankStride,
      twoshotRecvOffset,
      twoshotRankStride,
      scratchOffset,
      lamportOffset,
      lamportRankStride
    };
  }

  /** Bytes at the start of the allocation (flags and check words) that start at zero. */
  public long flagBytes() {
    return oneshotRecvOffset;
  }

  public long lamportBytes() {
    return 3 * world * lamportRankStride;
  }

  /** The largest all-reduce the peer-memory algorithms take. */
  public long maxBytes() {
    return oneshotRankStride;
  }
}
