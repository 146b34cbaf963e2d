package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.numeric.BlockSums;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/**
 * Collectives in which every rank reads the other ranks' staging areas directly (the IPC
 * algorithms): each copies its input into its own staging area, meets the others at a start
 * barrier, reads what it needs from every rank, and meets them again at an end barrier before its
 * staging area may be overwritten.
 *
 * <p>Sums read ranks in the fixed order 0..n−1 and accumulate in fp32, so every rank computes
 * bit-identical results, and one-shot and two-shot agree bit for bit.
 */
final class DirectAlgorithms {
  private static final int BLOCK = BlockSums.CAPACITY;

  private final int rank;
  private final int worldSize;
  private final SharedWorkspace workspace;
  private final FlagBarrier start;
  private final FlagBarrier middle;
  private final FlagBarrier end;
  private final BlockSums sums = new BlockSums();

  DirectAlgorithms(
      int rank,
      int worldSize,
      SharedWorkspace workspace,
      FlagBarrier start,
      FlagBarrier middle,
      FlagBarrier end) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.workspace = workspace;
    this.start = start;
    this.middle = middle;
    this.end = end;
  }

  /**
   * Every rank sums all staging areas itself: one barrier round trip, n reads per element. A call
   * larger than the staging area runs through it in passes, each a complete one-shot.
   */
  void oneShotAllReduce(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    long passCount = passCount(codec);
    for (long first = 0; first < count; first += passCount) {
      oneShotPass(operation, input, output, first, Math.min(passCount, count - first), codec);
    }
  }

  private void oneShotPass(
      String operation,
      MemorySegment input,
      MemorySegment output,
      long first,
      long count,
      ElementCodec codec) {
    stageInput(input, first * codec.bytes(), count * codec.bytes());
    start.arriveAndWait(operation);
    reduce(0, count, codec, output, first);
    end.arriveAndWait(operation);
  }

  /**
   * Each rank reduces its slice (the last takes the remainder) into its own staging area, then
   * gathers every rank's reduced slice: about 2(n−1)/n of the data moves per rank. A call larger
   * than the staging area runs through it in passes, each a complete two-shot.
   */
  void twoShotAllReduce(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    long passCount = passCount(codec);
    for (long first = 0; first < count; first += passCount) {
      twoShotPass(operation, input, output, first, Math.min(passCount, count - first), codec);
    }
  }

  private void twoShotPass(
      String operation,
      MemorySegment input,
      MemorySegment output,
      long first,
      long count,
      ElementCodec codec) {
    int bytes = codec.bytes();
    stageInput(input, first * bytes, count * bytes);
    start.arriveAndWait(operation);
    long sliceLength = count / worldSize;
    long mySliceStart = rank * sliceLength;
    long mySliceCount = rank == worldSize - 1 ? count - mySliceStart : sliceLength;
    // Peers read only their own slices of this staging area, so the reduced slice can replace
    // this rank's input slice in place.
    reduce(mySliceStart, mySliceCount, codec, workspace.staging(rank), mySliceStart);
    middle.arriveAndWait(operation);
    for (int owner = 0; owner < worldSize; owner++) {
      long sliceStart = owner * sliceLength;
      long sliceCount = owner == worldSize - 1 ? count - sliceStart : sliceLength;
      MemorySegment.copy(
          workspace.staging(owner),
          sliceStart * bytes,
          output,
          (first + sliceStart) * bytes,
          sliceCount * bytes);
    }
    end.arriveAndWait(operation);
  }

  /** Elements of {@code codec} that one pass through the staging area takes. */
  private long passCount(ElementCodec codec) {
    return workspace.staging(rank).byteSize() / codec.bytes();
  }

  /** Every rank copies every rank's input into its output, in rank order. */
  void allGather(String operation, MemorySegment input, MemorySegment output, long bytesPerRank) {
    stageInput(input, bytesPerRank);
    start.arriveAndWait(operation);
    for (int owner = 0; owner < worldSize; owner++) {
      MemorySegment.copy(workspace.staging(owner), 0, output, owner * bytesPerRank, bytesPerRank);
    }
    end.arriveAndWait(operation);
  }

  /** Every rank sums its own slice of every rank's input. */
  void reduceScatter(
      String operation,
      MemorySegment input,
      MemorySegment output,
      long countPerRank,
      ElementCodec codec) {
    stageInput(input, countPerRank * worldSize * codec.bytes());
    start.arriveAndWait(operation);
    reduce(rank * countPerRank, countPerRank, codec, output, 0);
    end.arriveAndWait(operation);
  }

  /** The root stages its input; every other rank copies it out of the root's staging area. */
  void broadcast(
      String operation, MemorySegment input, MemorySegment output, long bytes, int root) {
    if (rank == root) {
      stageInput(input, bytes);
    }
    start.arriveAndWait(operation);
    MemorySegment.copy(rank == root ? input : workspace.staging(root), 0, output, 0, bytes);
    end.arriveAndWait(operation);
  }

  private void stageInput(MemorySegment input, long bytes) {
    stageInput(input, 0, bytes);
  }

  private void stageInput(MemorySegment input, long inputOffset, long bytes) {
    MemorySegment.copy(input, inputOffset, workspace.staging(rank), 0, bytes);
  }

  /**
   * {@code destination[destinationIndex + i] = Σ_r staging_r[first + i]} for i below {@code count},
   * summed in fp32 in rank order and rounded once.
   */
  private void reduce(
      long first,
      long count,
      ElementCodec codec,
      MemorySegment destination,
      long destinationIndex) {
    for (long done = 0; done < count; done += BLOCK) {
      int length = (int) Math.min(BLOCK, count - done);
      codec.loadBlock(workspace.staging(0), first + done, sums, length);
      for (int owner = 1; owner < worldSize; owner++) {
        codec.accumulateBlock(workspace.staging(owner), first + done, sums, length);
      }
      codec.storeBlock(sums, destination, destinationIndex + done, length);
    }
  }
}
