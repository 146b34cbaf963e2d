package dev.gpucomm.runtime.collective.cuda;

/**
 * Where things sit inside every rank's peer-memory allocation (the same on all ranks of a node);
 * mirrors {@code struct PeerLayout} in allreduce.cu.
 *
 * <pre>
 * oneshot flags  uint32 [160 blocks][8 ranks]
 * twoshot flags  uint32 [3 barriers][160 blocks][8 ranks]  scatter, reduced, host part reduced
 * credits        uint32 [160 blocks][8 ranks]               oneshot_stream: chunks a peer has read
 * check          uint32 [8]                                 peer-memory write/read check
 * host words     uint32 [16 ready][done][8 senders][16 staged][8 in use]  the host path's hand-offs
 * oneshot recv   [2 parity][world][maxBytes]                a rank's own slots: host path landings
 * twoshot recv   [2 parity][world][maxBytes / world + 16 · world]
 * scratch        [maxBytes / world + 16 · world]              two-shot reduced slice
 * lamport        [3 slot][world][lamportMaxBytes]             sentinel-filled receive slots
 * lamport2       [2 scatter/gather][3 slot][world][lamport2MaxBytes / world + 16 · world]
 * </pre>
 *
 * Each algorithm has its own flags and receive areas, so each can run its own fixed grid.
 */
public record PeerMemoryLayout(
    int world,
    long oneshotFlagsOffset,
    long twoshotFlagsOffset,
    long streamCreditsOffset,
    long checkOffset,
    long hostWordsOffset,
    long oneshotRecvOffset,
    long oneshotRankStride,
    long twoshotRecvOffset,
    long twoshotRankStride,
    long scratchOffset,
    long lamportOffset,
    long lamportRankStride,
    long lamport2Offset,
    long lamport2RankStride,
    long totalBytes) {
  public static final int MAX_RANKS = 8;
  public static final int MAX_BLOCKS = CudaCommunicatorSettings.MAX_BLOCKS;
  static final long FLAG_SET_BYTES = (long) MAX_BLOCKS * MAX_RANKS * Integer.BYTES;
  static final long CHECK_BYTES = MAX_RANKS * Integer.BYTES;

  /** Most chunks the host path is cut into (HostWords in allreduce.cu). */
  public static final int HOST_CHUNKS_MAX = 16;

  static final long HOST_READY_OFFSET = 0;
  static final long HOST_STAGED_OFFSET = (HOST_CHUNKS_MAX + 1L) * Integer.BYTES;
  static final long HOST_IN_USE_OFFSET =
      HOST_STAGED_OFFSET + (long) MAX_RANKS * HOST_CHUNKS_MAX * Integer.BYTES;
  static final long HOST_WORDS_BYTES = HOST_IN_USE_OFFSET + (long) MAX_RANKS * Integer.BYTES;
  private static final long ALIGNMENT = 256;

  /** The word every Lamport receive slot holds until data lands: two bf16/fp16 -0.0 halves. */
  public static final int LAMPORT_SENTINEL = 0x80008000;

  public static PeerMemoryLayout of(
      int world, long maxBytes, long lamportMaxBytes, long lamport2MaxBytes) {
    if (world < 1 || world > MAX_RANKS) {
      throw new IllegalArgumentException(
          "peer memory spans 1.." + MAX_RANKS + " ranks of a node, got " + world);
    }
    long oneshotFlagsOffset = 0;
    long twoshotFlagsOffset = align(oneshotFlagsOffset + FLAG_SET_BYTES);
    long streamCreditsOffset = align(twoshotFlagsOffset + 3 * FLAG_SET_BYTES);
    long checkOffset = align(streamCreditsOffset + FLAG_SET_BYTES);
    long hostWordsOffset = align(checkOffset + CHECK_BYTES);
    long oneshotRecvOffset = align(hostWordsOffset + HOST_WORDS_BYTES);
    long oneshotRankStride = align(maxBytes);
    long twoshotRecvOffset = oneshotRecvOffset + 2 * world * oneshotRankStride;
    // The last rank's two-shot slice is the largest: vectors/world plus fewer than world vectors.
    long twoshotRankStride = align(maxBytes / world + 16L * world);
    long scratchOffset = twoshotRecvOffset + 2 * world * twoshotRankStride;
    long lamportOffset = scratchOffset + twoshotRankStride;
    long lamportRankStride = align(Math.max(16, lamportMaxBytes));
    long lamport2Offset = lamportOffset + 3 * world * lamportRankStride;
    long lamport2RankStride = align(Math.max(16, lamport2MaxBytes) / world + 16L * world);
    long totalBytes = lamport2Offset + 2 * 3 * world * lamport2RankStride;
    return new PeerMemoryLayout(
        world,
        oneshotFlagsOffset,
        twoshotFlagsOffset,
        streamCreditsOffset,
        checkOffset,
        hostWordsOffset,
        oneshotRecvOffset,
        oneshotRankStride,
        twoshotRecvOffset,
        twoshotRankStride,
        scratchOffset,
        lamportOffset,
        lamportRankStride,
        lamport2Offset,
        lamport2RankStride,
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
      lamportRankStride,
      lamport2Offset,
      lamport2RankStride,
      hostWordsOffset,
      streamCreditsOffset
    };
  }

  /** Where the host path's word {@code ready[chunk]} sits in a rank's allocation. */
  public long hostReadyOffset(int chunk) {
    return hostWordsOffset + HOST_READY_OFFSET + (long) chunk * Integer.BYTES;
  }

  /**
   * Where the host path's word {@code staged[sender][chunk]} sits in a receiving rank's allocation:
   * the sender's outbound copy stream sets it over the peer mapping once the chunk is in host
   * memory, the receiver's inbound copy stream waits for it in its own memory and clears it.
   */
  public long hostStagedOffset(int sender, int chunk) {
    return hostWordsOffset
        + HOST_STAGED_OFFSET
        + ((long) sender * HOST_CHUNKS_MAX + chunk) * Integer.BYTES;
  }

  /**
   * Where the host path's word {@code inUse[receiver]} sits in a sending rank's allocation: the
   * sender sets it before it stages, the receiver clears it over the peer mapping once it has
   * copied every chunk on.
   */
  public long hostInUseOffset(int receiver) {
    return hostWordsOffset + HOST_IN_USE_OFFSET + (long) receiver * Integer.BYTES;
  }

  /**
   * Where the one-shot's host path (two ranks) lands the peer's host share in this rank's
   * allocation: this rank's own one-shot receive slot of parity 0, which no peer ever writes.
   */
  public long hostReceiveOffset(int rank) {
    return oneshotRecvOffset + rank * oneshotRankStride;
  }

  /**
   * Where the two-shot's host path keeps this rank's host part: its own one-shot receive slot of
   * parity 1 (no peer ever writes there), sender s's copy at s part sizes in, the reduced part at
   * this rank's own index, where the peers pull it from.
   */
  public long hostPartsOffset(int rank) {
    return oneshotRecvOffset + (world + rank) * oneshotRankStride;
  }

  /** Bytes at the start of the allocation (flags, check and host words) that start at zero. */
  public long flagBytes() {
    return oneshotRecvOffset;
  }

  /** Bytes of both Lamport regions, which follow each other and start out sentinel-filled. */
  public long lamportBytes() {
    return 3 * world * lamportRankStride + 2 * 3 * world * lamport2RankStride;
  }

  /** The largest all-reduce the Lamport two-shot kernel takes. */
  public long lamport2MaxBytes() {
    return 16 * world * (lamport2RankStride / 16 - world);
  }

  /** The largest all-reduce the peer-memory algorithms take. */
  public long maxBytes() {
    return oneshotRankStride;
  }
}
