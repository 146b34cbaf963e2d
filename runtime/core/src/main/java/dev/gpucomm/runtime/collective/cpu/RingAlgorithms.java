package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.numeric.BlockSums;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/**
 * Ring collectives over {@link MessageChannels}, the way NCCL moves data: each rank sends only to
 * its right neighbour and receives only from its left, in pieces of one channel slot.
 *
 * <p>All-reduce is a reduce-scatter followed by an all-gather. The first hop of a chunk carries the
 * sender's elements as they are (they convert to fp32 exactly, so the receiver starts its sum from
 * them); later hops carry partial sums in fp32, in the codec's block order ({@link
 * ElementCodec#loadBlock}), and the rank that completes a chunk rounds it to the element type once.
 * The all-gather then copies that rank's bits to everyone, so all ranks end with identical results.
 *
 * <p>Every rank walks the pieces in the same order and, per piece, sends once and then alternates
 * receive and send; with at least two slots per channel no rank can wait on a full channel whose
 * reader waits on it.
 */
final class RingAlgorithms {
  private static final int BLOCK = BlockSums.CAPACITY;

  private final int rank;
  private final int worldSize;
  private final int left;
  private final int right;
  private final MessageChannels channels;
  private final MemorySegment piece;
  private final BlockSums sums = new BlockSums();
  private final int piecePartials;

  RingAlgorithms(int rank, int worldSize, MessageChannels channels) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.left = (rank + worldSize - 1) % worldSize;
    this.right = (rank + 1) % worldSize;
    this.channels = channels;
    this.piecePartials = channels.slotBytes() / Float.BYTES;
    // The partials of one piece, between receiving them and sending them on.
    this.piece = MemorySegment.ofArray(new float[piecePartials]);
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
      sendBytes(input, first * bytes, (long) length * bytes, operation);
      for (int step = 1; step < worldSize - 1; step++) {
        chunkIndex = Math.floorMod(rank - step, worldSize);
        first = pieceFirst(chunkIndex, chunk, pieceStart, count);
        length = pieceLength(chunkIndex, chunk, pieceStart, count);
        receiveAndAccumulate(step == 1, input, first, length, codec, operation);
        sendPartials(length, operation);
      }
      // This rank completes chunk (rank + 1), rounds it once and starts its all-gather.
      chunkIndex = (rank + 1) % worldSize;
      first = pieceFirst(chunkIndex, chunk, pieceStart, count);
      length = pieceLength(chunkIndex, chunk, pieceStart, count);
      receiveAndStore(worldSize == 2, input, first, output, first, length, codec, operation);
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
    int bytes = codec.bytes();
    if (worldSize == 1) {
      MemorySegment.copy(input, 0, output, 0, count * bytes);
      return;
    }
    long pieces = ceilDiv(count, piecePartials);
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * piecePartials;
      int length = (int) Math.min(piecePartials, count - pieceStart);
      // The partial of chunk (rank - 1 - s) moves right at step s, so chunk r completes on rank r.
      long firstOfOwnChunk = Math.floorMod(rank - 1, worldSize) * count + pieceStart;
      sendBytes(input, firstOfOwnChunk * bytes, (long) length * bytes, operation);
      for (int step = 1; step < worldSize; step++) {
        long first = Math.floorMod(rank - 1 - step, worldSize) * count + pieceStart;
        if (step < worldSize - 1) {
          receiveAndAccumulate(step == 1, input, first, length, codec, operation);
          sendPartials(length, operation);
        } else {
          receiveAndStore(step == 1, input, first, output, pieceStart, length, codec, operation);
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

  /**
   * {@code piece} = the message from the left (the left's elements when {@code elements}, else its
   * partials) plus this rank's {@code length} elements from {@code inputIndex}, block by block in
   * block order.
   */
  private void receiveAndAccumulate(
      boolean elements,
      MemorySegment input,
      long inputIndex,
      int length,
      ElementCodec codec,
      String operation) {
    MemorySegment slot = channels.awaitMessage(left, operation);
    for (int done = 0; done < length; done += BLOCK) {
      int blockLength = Math.min(BLOCK, length - done);
      sumBlock(slot, elements, done, input, inputIndex + done, blockLength, codec);
      sums.copyTo(piece, (long) done * Float.BYTES, blockLength);
    }
    channels.release(left);
  }

  /**
   * As {@link #receiveAndAccumulate}, but stores the sums, rounded once, as {@code length} elements
   * of {@code output} from {@code outputIndex}.
   */
  private void receiveAndStore(
      boolean elements,
      MemorySegment input,
      long inputIndex,
      MemorySegment output,
      long outputIndex,
      int length,
      ElementCodec codec,
      String operation) {
    MemorySegment slot = channels.awaitMessage(left, operation);
    for (int done = 0; done < length; done += BLOCK) {
      int blockLength = Math.min(BLOCK, length - done);
      sumBlock(slot, elements, done, input, inputIndex + done, blockLength, codec);
      codec.storeBlock(sums, output, outputIndex + done, blockLength);
    }
    channels.release(left);
  }

  /** {@code sums} = block {@code done} of the message plus this rank's elements. */
  private void sumBlock(
      MemorySegment slot,
      boolean elements,
      int done,
      MemorySegment input,
      long inputIndex,
      int blockLength,
      ElementCodec codec) {
    if (elements) {
      codec.loadBlock(slot, done, sums, blockLength);
    } else {
      sums.copyFrom(slot, (long) done * Float.BYTES, blockLength);
    }
    codec.accumulateBlock(input, inputIndex, sums, blockLength);
  }

  private void sendPartials(int length, String operation) {
    MemorySegment slot = channels.acquireSendSlot(right, operation);
    MemorySegment.copy(piece, 0, slot, 0, (long) length * Float.BYTES);
    channels.publish(right, (long) length * Float.BYTES, operation);
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
