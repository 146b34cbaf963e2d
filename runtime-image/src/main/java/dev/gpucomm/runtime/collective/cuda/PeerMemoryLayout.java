package dev.gpucomm.runtime.collective.cuda;

/**
 * Where things sit inside every rank's peer-memory allocation (the same on all ranks of a node);
 * mirrors {@code struct PeerLayout} in allreduce.cu.
 *
 * <pre>
 * signals   uint32 flags[2 parity][2 barrier][64 blocks][8 ranks]
 * check     uint32 check[8]                          peer-memory write/read check
 * recv      [2 parity][world][maxBytes]              one-shot and two-shot receive areas
 * scratch   [maxBytes / world + 16 · world]          two-shot reduced slice
 * lamport   [3 slot][world][lamportMaxBytes]         Lamport receive slots (sentinel-filled)
 * </pre>
 */
public record PeerMemoryLayout(
    int world,
    long signalOffset,
    long checkOffset,
    long recvOffset,
    long recvRankStride,
    long recvParityStride,
    long scratchOffset,
    long scratchBytes,
    long lamportOffset,
    long lamportRankStride,
    long lamportSlotStride,
    long totalBytes) {
  public static final int MAX_RANKS = 8;
  public static final int MAX_BLOCKS = CudaCommunicatorSettings.MAX_BLOCKS;
  static final long SIGNAL_BYTES = 2L * 2 * MAX_BLOCKS * MAX_RANKS * Integer.BYTES;
  static final long CHECK_BYTES = MAX_RANKS * Integer.BYTES;
  private static final long ALIGNMENT = 256;

  /** The word every Lamport receive slot holds until data lands: two bf16/fp16 -0.0 halves. */
  public static final int LAMPORT_SENTINEL = 0x80008000;

  public static PeerMemoryLayout of(int world, long maxBytes, long lamportMaxBytes) {
    if (world < 1 || world > MAX_RANKS) {
      throw new IllegalArgumentException(
          "peer memory spans 1.." + MAX_RANKS + " ranks of a node, got " + world);
    }
    long signalOffset = 0;
    long checkOffset = align(signalOffset + SIGNAL_BYTES);
    long recvOffset = align(checkOffset + CHECK_BYTES);
    long recvRankStride = align(maxBytes);
    long recvParityStride = world * recvRankStride;
    long scratchOffset = recvOffset + 2 * recvParityStride;
    // The last rank's two-shot slice is the largest: vectors/world plus fewer than world vectors.
    long scratchBytes = align(maxBytes / world + 16L * world);
    long lamportOffset = scratchOffset + scratchBytes;
    long lamportRankStride = align(Math.max(16, lamportMaxBytes));
    long lamportSlotStride = world * lamportRankStride;
    long totalBytes = lamportOffset + 3 * lamportSlotStride;
    return new PeerMemoryLayout(
        world,
        signalOffset,
        checkOffset,
        recvOffset,
        recvRankStride,
        recvParityStride,
        scratchOffset,
        scratchBytes,
        lamportOffset,
        lamportRankStride,
        lamportSlotStride,
        totalBytes);
  }

  private static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  /** The kernel's {@code PeerLayout} struct, in field order. */
  public long[] kernelStruct() {
    return new long[] {
      signalOffset,
      checkOffset,
      recvOffset,
      recvRankStride,
      recvParityStride,
      scratchOffset,
      lamportOffset,
      lamportRankStride,
      lamportSlotStride
    };
  }

  /** Bytes at the start of the allocation that must be zero before first use. */
  public long flagBytes() {
    return recvOffset;
  }

  public long lamportBytes() {
    return 3 * lamportSlotStride;
  }
}
