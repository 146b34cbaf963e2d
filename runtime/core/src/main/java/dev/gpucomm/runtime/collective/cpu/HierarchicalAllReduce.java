package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/**
 * All-reduce in three stages, the way NCCL crosses nodes: a ring reduce-scatter among the ranks of
 * the pod (shared memory) leaves each rank with its pod's sum of one shard; a ring all-reduce among
 * the ranks with the same local rank in every pod (TCP) sums that shard across pods; a ring
 * all-gather inside the pod hands every rank every shard.
 *
 * <p>The stages run piece by piece, so no scratch buffer the size of the message is needed. A piece
 * is one channel slot of fp32 partial sums per pod: inside the pod it moves a slot at a time, and
 * across pods, where the ring splits it once per pod, every message still fills a slot. Pieces of
 * one slot would send a pod's link messages of a fraction of a slot, each a round trip across the
 * network, and leave the link idle for much of the time. Partial sums stay fp32 through both
 * reductions and are rounded to the element type once, by the rank that completes a piece of a
 * shard; every other rank receives those bits, so all ranks end with identical results. With one
 * pod this is a reduce-scatter and an all-gather inside the pod; with one rank per pod, a ring
 * across pods.
 */
final class HierarchicalAllReduce {
  private static final ElementCodec PARTIALS = ElementCodec.of(DType.FP32);

  /** The most slots in a piece, which bounds the piece buffer with many pods. */
  private static final int MAX_SLOTS_PER_PIECE = 16;

  private final int localRank;
  private final int ranksPerPod;
  private final int podIndex;
  private final int pods;
  private final int localLeft;
  private final int localRight;
  private final int podLeft;
  private final int podRight;
  private final MessageChannels channels;
  private final int piecePartials;
  private final int slotsPerPiece;
  private final float[] piece;
  private final float[] partial;

  HierarchicalAllReduce(int rank, int ranksPerPod, int worldSize, MessageChannels channels) {
    this.localRank = rank % ranksPerPod;
    this.ranksPerPod = ranksPerPod;
    this.podIndex = rank / ranksPerPod;
    this.pods = worldSize / ranksPerPod;
    int firstRankOfPod = podIndex * ranksPerPod;
    this.localLeft = firstRankOfPod + Math.floorMod(localRank - 1, ranksPerPod);
    this.localRight = firstRankOfPod + (localRank + 1) % ranksPerPod;
    this.podLeft = Math.floorMod(podIndex - 1, pods) * ranksPerPod + localRank;
    this.podRight = (podIndex + 1) % pods * ranksPerPod + localRank;
    this.channels = channels;
    this.piecePartials = channels.slotBytes() / Float.BYTES;
    this.slotsPerPiece = Math.min(pods, MAX_SLOTS_PER_PIECE);
    this.piece = new float[slotsPerPiece * piecePartials];
    this.partial = new float[piecePartials];
  }

  void allReduce(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    int bytes = codec.bytes();
    long shard = ceilDiv(count, ranksPerPod);
    int pieceElements = piece.length;
    long pieces = ceilDiv(shard, pieceElements);
    // The shard whose pod-wide sum the reduce-scatter leaves on this rank.
    int ownShard = (localRank + 1) % ranksPerPod;
    for (long pieceIndex = 0; pieceIndex < pieces; pieceIndex++) {
      long pieceStart = pieceIndex * pieceElements;
      for (int slot = 0; slot < slotsPerPiece; slot++) {
        reduceScatterInsidePod(
            operation, input, count, shard, pieceStart + (long) slot * piecePartials, slot, codec);
      }
      long first = pieceFirst(ownShard, shard, pieceStart, count);
      int length = spanLength(ownShard, shard, pieceStart, count, pieceElements);
      allReduceAcrossPods(operation, output, first, length, codec);
      for (int slot = 0; slot < slotsPerPiece; slot++) {
        allGatherInsidePod(
            operation, output, count, shard, pieceStart + (long) slot * piecePartials, bytes);
      }
    }
    if (ranksPerPod > 1) {
      channels.drain(localRight, operation);
    }
    if (pods > 1) {
      channels.drain(podRight, operation);
    }
  }

  /**
   * Leaves the pod's fp32 sum of the slot at {@code pieceStart} of shard (localRank + 1) in slot
   * {@code slot} of {@link #piece}.
   */
  private void reduceScatterInsidePod(
      String operation,
      MemorySegment input,
      long count,
      long shard,
      long pieceStart,
      int slot,
      ElementCodec codec) {
    int at = slot * piecePartials;
    int shardIndex = localRank;
    codec.load(
        input,
        pieceFirst(shardIndex, shard, pieceStart, count),
        piece,
        at,
        pieceLength(shardIndex, shard, pieceStart, count));
    if (ranksPerPod == 1) {
      return;
    }
    sendPartials(
        localRight, piece, at, pieceLength(shardIndex, shard, pieceStart, count), operation);
    for (int step = 1; step < ranksPerPod; step++) {
      shardIndex = Math.floorMod(localRank - step, ranksPerPod);
      int length = pieceLength(shardIndex, shard, pieceStart, count);
      receivePartials(localLeft, piece, at, length, operation);
      codec.accumulate(input, pieceFirst(shardIndex, shard, pieceStart, count), piece, at, length);
      if (step < ranksPerPod - 1) {
        sendPartials(localRight, piece, at, length, operation);
      }
    }
  }

  /**
   * Sums {@link #piece} (this pod's partial of {@code length} elements) over all pods, rounds it
   * and writes it to {@code output} at element {@code first}: a ring reduce-scatter in fp32 over
   * sub-pieces, then a ring all-gather of the rounded bits.
   */
  private void allReduceAcrossPods(
      String operation, MemorySegment output, long first, int length, ElementCodec codec) {
    if (pods == 1) {
      codec.store(piece, 0, output, first, length);
      return;
    }
    int bytes = codec.bytes();
    int sub = (length + pods - 1) / pods;
    int part = podIndex;
    sendPartials(
        podRight, piece, subFirst(part, sub, length), subLength(part, sub, length), operation);
    for (int step = 1; step < pods; step++) {
      part = Math.floorMod(podIndex - step, pods);
      int offset = subFirst(part, sub, length);
      int partLength = subLength(part, sub, length);
      receivePartials(podLeft, partial, 0, partLength, operation);
      for (int i = 0; i < partLength; i++) {
        partial[i] += piece[offset + i];
      }
      if (step < pods - 1) {
        sendPartials(podRight, partial, 0, partLength, operation);
      } else {
        codec.store(partial, 0, output, first + offset, partLength);
      }
    }
    // This rank completed sub-piece (podIndex + 1); its bits travel round the pods.
    part = (podIndex + 1) % pods;
    sendBytes(
        podRight,
        output,
        (first + subFirst(part, sub, length)) * bytes,
        (long) subLength(part, sub, length) * bytes,
        operation);
    for (int step = 0; step < pods - 1; step++) {
      part = Math.floorMod(podIndex - step, pods);
      long offset = (first + subFirst(part, sub, length)) * bytes;
      long partBytes = (long) subLength(part, sub, length) * bytes;
      receiveBytes(podLeft, output, offset, partBytes, operation);
      if (step < pods - 2) {
        sendBytes(podRight, output, offset, partBytes, operation);
      }
    }
  }

  /** Hands this piece of every shard to every rank of the pod. */
  private void allGatherInsidePod(
      String operation, MemorySegment output, long count, long shard, long pieceStart, int bytes) {
    if (ranksPerPod == 1) {
      return;
    }
    int shardIndex = (localRank + 1) % ranksPerPod;
    sendBytes(
        localRight,
        output,
        pieceFirst(shardIndex, shard, pieceStart, count) * bytes,
        (long) pieceLength(shardIndex, shard, pieceStart, count) * bytes,
        operation);
    for (int step = 0; step < ranksPerPod - 1; step++) {
      shardIndex = Math.floorMod(localRank - step, ranksPerPod);
      long offset = pieceFirst(shardIndex, shard, pieceStart, count) * bytes;
      long length = (long) pieceLength(shardIndex, shard, pieceStart, count) * bytes;
      receiveBytes(localLeft, output, offset, length, operation);
      if (step < ranksPerPod - 2) {
        sendBytes(localRight, output, offset, length, operation);
      }
    }
  }

  private static long pieceFirst(int shardIndex, long shard, long pieceStart, long count) {
    return Math.min(shardIndex * shard + pieceStart, count);
  }

  private int pieceLength(int shardIndex, long shard, long pieceStart, long count) {
    return spanLength(shardIndex, shard, pieceStart, count, piecePartials);
  }

  /** Elements of shard {@code shardIndex} from {@code start} on, at most {@code limit}. */
  private static int spanLength(int shardIndex, long shard, long start, long count, int limit) {
    long first = shardIndex * shard + start;
    long end = Math.min((shardIndex + 1) * shard, count);
    return (int) Math.max(0, Math.min(limit, end - first));
  }

  private static int subFirst(int part, int sub, int length) {
    return Math.min(part * sub, length);
  }

  private static int subLength(int part, int sub, int length) {
    return Math.max(0, Math.min(sub, length - part * sub));
  }

  private void sendPartials(int to, float[] values, int offset, int length, String operation) {
    MemorySegment slot = channels.acquireSendSlot(to, operation);
    PARTIALS.store(values, offset, slot, 0, length);
    channels.publish(to, (long) length * Float.BYTES, operation);
  }

  private void receivePartials(int from, float[] values, int offset, int length, String operation) {
    MemorySegment slot = channels.awaitMessage(from, operation);
    PARTIALS.load(slot, 0, values, offset, length);
    channels.release(from);
  }

  private void sendBytes(int to, MemorySegment source, long offset, long length, String operation) {
    MemorySegment slot = channels.acquireSendSlot(to, operation);
    MemorySegment.copy(source, offset, slot, 0, length);
    channels.publish(to, length, operation);
  }

  private void receiveBytes(
      int from, MemorySegment target, long offset, long length, String operation) {
    MemorySegment slot = channels.awaitMessage(from, operation);
    MemorySegment.copy(slot, 0, target, offset, length);
    channels.release(from);
  }

  private static long ceilDiv(long dividend, long divisor) {
    return (dividend + divisor - 1) / divisor;
  }
}
