package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/**
 * Ring collectives over {@link MessageChannels}, the way NCCL moves data: each rank sends only to
 * its right neighbour and receives only from its left, in pieces of one channel slot.
 *
 * <p>All-reduce is a reduce-scatter followed by an all-gather. Partial sums travel between ranks in
 * fp32 and are rounded to the element type once, by the rank that completes a chunk; the all-gather
 * then copies that rank's bits to everyone, so all ranks end with identical results.
 *
 * <p>Every rank walks the pieces in the same order and, per piece, sends once and then alternates
 * receive and send; with at least two slots per channel no rank can wait on a full channel whose
 * reader waits on it.
 */
final class RingAlgorithms {
  private static final ElementCodec PARTIALS = ElementCodec.of(DType.FP32);

  private final int rank;
  private final int worldSize;
  private final int left;
  private final int right;
  private final MessageChannels channels;
  private final float[] piece;
  private final int piecePartials;

  RingAlgorithms(int rank, int worldSize, MessageChannels channels) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.left = (rank + worldSize - 1) % worldSize;
    this.right = (rank + 1) % worldSize;
    this.channels = channels;
    this.piecePartials = channels.slotBytes() / Float.BYTES;
    this.piece = new float[piecePartials];
  }

  void allReduce(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    int bytes = codec.bytes();
    if (worldSize == 1) {
      MemorySegment.copy(input, 0, output, 0, count * bytes);
      return;
    }
    long chunk = ceilDiv(count, worldSize);
    long pieces = ceilDiv(chunk, piecePartials);
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * piecePartials;
      // Reduce-scatter: the partial of chunk (rank - s) moves right at step s.
      int chunkIndex = rank;
      long first = pieceFirst(chunkIndex, chunk, pieceStart, count);
      int length = pieceLength(chunkIndex, chunk, pieceStart, count);
      codec.load(input, first, piece, 0, length);
      sendPartials(length, operation);
      for (int step = 1; step < worldSize - 1; step++) {
        chunkIndex = Math.floorMod(rank - step, worldSize);
        first = pieceFirst(chunkIndex, chunk, pieceStart, count);
        length = pieceLength(chunkIndex, chunk, pieceStart, count);
        receivePartials(length, operation);
        codec.accumulate(input, first, piece, 0, length);
        sendPartials(length, operation);
      }
      // This rank completes chunk (rank + 1), rounds it once and starts its all-gather.
      chunkIndex = (rank + 1) % worldSize;
      first = pieceFirst(chunkIndex, chunk, pieceStart, count);
      length = pieceLength(chunkIndex, chunk, pieceStart, count);
      receivePartials(length, operation);
      codec.accumulate(input, first, piece, 0, length);
      codec.store(piece, 0, output, first, length);
      sendBytes(output, first * bytes, (long) length * bytes, operation);
      // All-gather: chunk (rank - t) arrives at step t and moves on, except at the last step.
      for (int step = 0; step < worldSize - 1; step++) {
        chunkIndex = Math.floorMod(rank - step, worldSize);
        first = pieceFirst(chunkIndex, chunk, pieceStart, count);
        length = pieceLength(chunkIndex, chunk, pieceStart, count);
        receiveBytes(output, first * bytes, (long) length * bytes, operation);
        if (step < worldSize - 2) {
          sendBytes(output, first * bytes, (long) length * bytes, operation);
        }
      }
    }
    channels.drain(right, operation);
  }

  /** Rank r ends with the sum of chunk r of every rank's input ({@code count} elements each). */
  void reduceScatter(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    if (worldSize == 1) {
      MemorySegment.copy(input, 0, output, 0, count * codec.bytes());
      return;
    }
    long pieces = ceilDiv(count, piecePartials);
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * piecePartials;
      int length = (int) Math.min(piecePartials, count - pieceStart);
      // The partial of chunk (rank - 1 - s) moves right at step s, so chunk r completes on rank r.
      codec.load(input, Math.floorMod(rank - 1, worldSize) * count + pieceStart, piece, 0, length);
      sendPartials(length, operation);
      for (int step = 1; step < worldSize; step++) {
        int chunkIndex = Math.floorMod(rank - 1 - step, worldSize);
        receivePartials(length, operation);
        codec.accumulate(input, chunkIndex * count + pieceStart, piece, 0, length);
        if (step < worldSize - 1) {
          sendPartials(length, operation);
        } else {
          codec.store(piece, 0, output, pieceStart, length);
        }
      }
    }
    channels.drain(right, operation);
  }

  /** Rank r's input becomes chunk r of every rank's output. */
  void allGather(String operation, MemorySegment input, MemorySegment output, long bytesPerRank) {
    MemorySegment.copy(input, 0, output, rank * bytesPerRank, bytesPerRank);
    if (worldSize == 1) {
      return;
    }
    long pieceBytes = channels.slotBytes();
    long pieces = ceilDiv(bytesPerRank, pieceBytes);
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * pieceBytes;
      long length = Math.min(pieceBytes, bytesPerRank - pieceStart);
      sendBytes(input, pieceStart, length, operation);
      for (int step = 0; step < worldSize - 1; step++) {
        long offset = Math.floorMod(rank - 1 - step, worldSize) * bytesPerRank + pieceStart;
        receiveBytes(output, offset, length, operation);
        if (step < worldSize - 2) {
          sendBytes(output, offset, length, operation);
        }
      }
    }
    channels.drain(right, operation);
  }

  /** A chain from the root to its left neighbour, each rank forwarding what it received. */
  void broadcast(
      String operation, MemorySegment input, MemorySegment output, long bytes, int root) {
    int position = Math.floorMod(rank - root, worldSize);
    if (position == 0) {
      MemorySegment.copy(input, 0, output, 0, bytes);
    }
    if (worldSize == 1) {
      return;
    }
    long pieceBytes = channels.slotBytes();
    long pieces = ceilDiv(bytes, pieceBytes);
    boolean forwards = position < worldSize - 1;
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * pieceBytes;
      long length = Math.min(pieceBytes, bytes - pieceStart);
      if (position > 0) {
        receiveBytes(output, pieceStart, length, operation);
      }
      if (forwards) {
        sendBytes(output, pieceStart, length, operation);
      }
    }
    if (forwards) {
      channels.drain(right, operation);
    }
  }

  /**
   * First element of piece {@code pieceStart} in chunk {@code chunkIndex}. Trailing chunks can be
   * empty (7 elements over 5 ranks); their pieces start at the end, so that even empty copies stay
   * inside the buffers.
   */
  private static long pieceFirst(int chunkIndex, long chunk, long pieceStart, long count) {
    return Math.min(chunkIndex * chunk + pieceStart, count);
  }

  /** Elements of piece {@code pieceStart} in chunk {@code chunkIndex}; 0 past the end. */
  private int pieceLength(int chunkIndex, long chunk, long pieceStart, long count) {
    long first = chunkIndex * chunk + pieceStart;
    long end = Math.min((chunkIndex + 1) * chunk, count);
    return (int) Math.max(0, Math.min(piecePartials, end - first));
  }

  private void sendPartials(int length, String operation) {
    MemorySegment slot = channels.acquireSendSlot(right, operation);
    PARTIALS.store(piece, 0, slot, 0, length);
    channels.publish(right, (long) length * Float.BYTES, operation);
  }

  private void receivePartials(int length, String operation) {
    MemorySegment slot = channels.awaitMessage(left, operation);
    PARTIALS.load(slot, 0, piece, 0, length);
    channels.release(left);
  }

  private void sendBytes(MemorySegment source, long offset, long length, String operation) {
    MemorySegment slot = channels.acquireSendSlot(right, operation);
    MemorySegment.copy(source, offset, slot, 0, length);
    channels.publish(right, length, operation);
  }

  private void receiveBytes(MemorySegment target, long offset, long length, String operation) {
    MemorySegment slot = channels.awaitMessage(left, operation);
    MemorySegment.copy(slot, 0, target, offset, length);
    channels.release(left);
  }

  private static long ceilDiv(long dividend, long divisor) {
    return (dividend + divisor - 1) / divisor;
  }
}
