package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.numeric.BlockSums;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Collectives in which every rank reads the other ranks' staging areas directly (the IPC
 * algorithms): each copies its input into its own staging area, meets the others at a start
 * barrier, reads what it needs from every rank, and meets them again at an end barrier before its
 * staging area may be overwritten (the one-shot all-reduce, which alternates between two halves of
 * the staging area, only arrives there and leaves the wait to the next other collective). A rank
 * reads its own term from its input, which holds the same values; two-shot stages only the slices
 * that the other ranks reduce.
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
  private final PendingEndBarrier pendingEnd;
  private final BlockSums sums = new BlockSums();
  // One-shot passes so far: each stages into the half of the staging area this picks.
  private long oneShotPasses;
  // The terms of a block's sum, in rank order: filled per block, allocated once.
  private final MemorySegment[] terms;
  private final long[] termIndices;

  DirectAlgorithms(
      int rank,
      int worldSize,
      SharedWorkspace workspace,
      FlagBarrier start,
      FlagBarrier middle,
      FlagBarrier end,
      PendingEndBarrier pendingEnd) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.workspace = workspace;
    this.start = start;
    this.middle = middle;
    this.end = end;
    this.pendingEnd = pendingEnd;
    this.terms = new MemorySegment[worldSize];
    this.termIndices = new long[worldSize];
  }

  /**
   * Every rank sums all staging areas itself: one barrier wait per call, n reads per element.
   * Passes alternate between the two halves of the staging area and only arrive at the end barrier
   * ({@link PendingEndBarrier} says why that is safe); a call larger than half the staging area
   * runs through it in passes, each a complete one-shot. The caller must settle the end barrier
   * before any other collective.
   */
  void oneShotAllReduce(
      String operation, MemorySegment input, MemorySegment output, long count, ElementCodec codec) {
    long halfCount = passCount(codec) / 2;
    if (halfCount == 0) {
      throw new IllegalStateException(
          operation + ": the staging area must hold two elements for one-shot");
    }
    for (long first = 0; first < count; first += halfCount) {
      long stagedAt = (oneShotPasses++ & 1) * halfCount;
      oneShotPass(
          operation, input, output, first, Math.min(halfCount, count - first), stagedAt, codec);
    }
  }

  private void oneShotPass(
      String operation,
      MemorySegment input,
      MemorySegment output,
      long first,
      long count,
      long stagedAt,
      ElementCodec codec) {
    int bytes = codec.bytes();
    stageInput(input, first * bytes, stagedAt * bytes, count * bytes);
    start.arriveAndWait(operation);
    reduce(stagedAt, count, codec, input, first, output, first);
    pendingEnd.arrive();
  }

  /**
   * Each rank reduces its slice (the last takes the remainder) into its output and its staging
   * area, then gathers every other rank's reduced slice: about 2(n−1)/n of the data moves per rank.
   * A call larger than the staging area runs through it in passes, each a complete two-shot.
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
    long sliceLength = count / worldSize;
    long mySliceStart = rank * sliceLength;
    long mySliceCount = rank == worldSize - 1 ? count - mySliceStart : sliceLength;
    long mySliceEnd = mySliceStart + mySliceCount;
    // Peers read only their own slices of this staging area: this rank's slice is reduced from its
    // input, so only the others are staged.
    stageInput(input, first * bytes, 0, mySliceStart * bytes);
    MemorySegment.copy(
        input,
        (first + mySliceEnd) * bytes,
        workspace.staging(rank),
        mySliceEnd * bytes,
        (count - mySliceEnd) * bytes);
    start.arriveAndWait(operation);
    reduce(
        mySliceStart,
        mySliceCount,
        codec,
        input,
        first + mySliceStart,
        output,
        first + mySliceStart);
    // The reduced slice goes where the peers gather it from.
    MemorySegment.copy(
        output,
        (first + mySliceStart) * bytes,
        workspace.staging(rank),
        mySliceStart * bytes,
        mySliceCount * bytes);
    middle.arriveAndWait(operation);
    for (int owner = 0; owner < worldSize; owner++) {
      if (owner == rank) {
        continue;
      }
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
    reduce(rank * countPerRank, countPerRank, codec, input, rank * countPerRank, output, 0);
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
    stageInput(input, 0, 0, bytes);
  }

  private void stageInput(MemorySegment input, long inputOffset, long stagingOffset, long bytes) {
    MemorySegment.copy(input, inputOffset, workspace.staging(rank), stagingOffset, bytes);
  }

  /**
   * {@code destination[destinationIndex + i] = Σ_r staging_r[first + i]} for i below {@code count},
   * summed in fp32 in rank order and rounded once; this rank's own term is read from {@code own} at
   * {@code ownIndex + i}, where it has the same values as in its staging area.
   */
  private void reduce(
      long first,
      long count,
      ElementCodec codec,
      MemorySegment own,
      long ownIndex,
      MemorySegment destination,
      long destinationIndex) {
    for (int owner = 0; owner < worldSize; owner++) {
      terms[owner] = owner == rank ? own : workspace.staging(owner);
      termIndices[owner] = owner == rank ? ownIndex : first;
    }
    for (long done = 0; done < count; done += BLOCK) {
      int length = (int) Math.min(BLOCK, count - done);
      codec.sumInto(
          terms, termIndices, worldSize, destination, destinationIndex + done, length, sums);
      for (int owner = 0; owner < worldSize; owner++) {
        termIndices[owner] += length;
      }
    }
    Arrays.fill(terms, null); // the caller's input is not kept past the call
  }
}
