package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The copy-engine all-gather and reduce-scatter of the CUDA backend as plain copies through the
 * shared staging areas: the bytes move in pieces that fit one staging area (so any size runs), each
 * piece between a start and an end barrier, and reduce-scatter copies every rank's shard into a
 * local landing area before it sums them, as the GPU's copy engines land shards before its small
 * reduction kernel.
 *
 * <p>Sums read ranks in the fixed order 0..n−1 and accumulate in fp32, so the results equal the
 * one-shot algorithms' bit for bit.
 */
final class CopyPathAlgorithms {
  private static final int BLOCK = 4096;

  private final int rank;
  private final int worldSize;
  private final SharedWorkspace workspace;
  private final long stagingBytes;
  private final FlagBarrier start;
  private final FlagBarrier end;
  private final Arena arena = Arena.ofShared();
  private final float[] sums = new float[BLOCK];
  private MemorySegment landing;

  CopyPathAlgorithms(
      int rank,
      int worldSize,
      SharedWorkspace workspace,
      long stagingBytes,
      FlagBarrier start,
      FlagBarrier end) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.workspace = workspace;
    this.stagingBytes = stagingBytes;
    this.start = start;
    this.end = end;
  }

  /** Every rank's input lands in every output, one staging area's worth at a time. */
  void allGather(String operation, MemorySegment input, MemorySegment output, long bytesPerRank) {
    for (long offset = 0; offset < bytesPerRank; offset += stagingBytes) {
      long piece = Math.min(stagingBytes, bytesPerRank - offset);
      MemorySegment.copy(input, offset, workspace.staging(rank), 0, piece);
      start.arriveAndWait(operation);
      for (int owner = 0; owner < worldSize; owner++) {
        MemorySegment.copy(
            workspace.staging(owner), 0, output, owner * bytesPerRank + offset, piece);
      }
      end.arriveAndWait(operation);
    }
  }

  /**
   * Each rank stages a piece of every shard, copies its own shard's piece from every rank into its
   * landing area, and sums the landed pieces in rank order once the peers may reuse their staging.
   */
  void reduceScatter(
      String operation,
      MemorySegment input,
      MemorySegment output,
      long countPerRank,
      ElementCodec codec) {
    int bytes = codec.bytes();
    // Whole 16-byte vectors per piece, as on the GPU.
    long pieceCount = Math.max(1, stagingBytes / worldSize / 16 * 16 / bytes);
    MemorySegment landed = landing();
    for (long first = 0; first < countPerRank; first += pieceCount) {
      long count = Math.min(pieceCount, countPerRank - first);
      long pieceBytes = count * bytes;
      for (int shard = 0; shard < worldSize; shard++) {
        MemorySegment.copy(
            input,
            (shard * countPerRank + first) * bytes,
            workspace.staging(rank),
            shard * pieceBytes,
            pieceBytes);
      }
      start.arriveAndWait(operation);
      for (int sender = 0; sender < worldSize; sender++) {
        MemorySegment.copy(
            workspace.staging(sender), rank * pieceBytes, landed, sender * pieceBytes, pieceBytes);
      }
      end.arriveAndWait(operation);
      for (long done = 0; done < count; done += BLOCK) {
        int length = (int) Math.min(BLOCK, count - done);
        codec.load(landed, done, sums, 0, length);
        for (int sender = 1; sender < worldSize; sender++) {
          codec.accumulate(landed, sender * count + done, sums, 0, length);
        }
        codec.store(sums, 0, output, first + done, length);
      }
    }
  }

  /** The landing area: one staging area's worth, allocated at the first reduce-scatter. */
  private MemorySegment landing() {
    if (landing == null) {
      landing = arena.allocate(stagingBytes, 16);
    }
    return landing;
  }

  void close() {
    arena.close();
  }
}
