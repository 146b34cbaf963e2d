package dev.gpucomm.runtime.numeric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Block conversions between bf16 elements in a memory segment and fp32 values in a {@code float[]},
 * written so that the JIT compiles them to vector instructions.
 *
 * <p>The loops work on two elements at a time: a pair of bf16 elements is one {@code int}, a pair
 * of fp32 values one {@code long}. Widening int to long and bitwise long arithmetic vectorize,
 * whereas per-element short-to-int casts and float-to-bits conversions do not, and reinterpreting
 * bits as floats is a bulk copy between arrays. Rounding is the same round-to-nearest-even as
 * {@link Bf16#fromFloat}, done on both halves of a long at once, so results are bit-identical to
 * the element-by-element path. Needs native little-endian byte order (the bf16 at the lower address
 * is the low half of a pair); {@link #SUPPORTED} says whether this host has it.
 *
 * <p>The split methods keep a block's fp32 values in block order (see {@link
 * ElementCodec#loadBlock}): the even elements first, then the odd ones, then the last element of an
 * odd length. A pair then becomes two ints with shifts and masks alone, which vectorize at full
 * width, and bits become floats in bulk copies; no pass interleaves the halves again.
 *
 * <p>Each thread gets its own scratch arrays, allocated once.
 */
final class Bf16Blocks {
  static final boolean SUPPORTED =
      java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

  /** Element pairs per pass through the scratch arrays: small enough to stay in L1. */
  private static final int PAIRS = 1024;

  private static final ValueLayout.OfInt PAIR_OF_BF16 = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong PAIR_OF_FP32 = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;

  private static final long LOW_HALVES = 0x0000_0000_ffff_ffffL;
  private static final long ABSOLUTE = 0x7fff_ffff_7fff_ffffL;
  private static final long NAN_CARRY = 0x007f_ffff_007f_ffffL;
  private static final long SIGN_BITS = 0x8000_0000_8000_0000L;
  private static final long LOW_BITS = 0x0000_0001_0000_0001L;
  private static final long ROUNDING = 0x0000_7fff_0000_7fffL;
  private static final long QUIET = 0x0040_0000_0040_0000L;

  private static final int SPLIT_PAIRS = BlockSums.CAPACITY / 2;
  private static final ValueLayout.OfFloat FP32 = ValueLayout.JAVA_FLOAT;
  private static final ValueLayout.OfInt FP32_BITS = ValueLayout.JAVA_INT;
  private static final int UPPER_HALF = 0xffff_0000;

  private static final ThreadLocal<Bf16Blocks> SCRATCH = ThreadLocal.withInitial(Bf16Blocks::new);

  private final int[] bf16Pairs = new int[PAIRS];
  private final long[] fp32Pairs = new long[PAIRS];
  private final float[] operands = new float[2 * PAIRS];
  private final float[] partials = new float[2 * PAIRS];
  private final MemorySegment operandSegment = MemorySegment.ofArray(operands);
  private final int[] blockPairs = new int[SPLIT_PAIRS];
  private final int[] evenBits = new int[SPLIT_PAIRS];
  private final int[] oddBits = new int[SPLIT_PAIRS];
  // Views of the bit arrays that bulk copies read and write as floats.
  private final MemorySegment evenSegment = MemorySegment.ofArray(evenBits);
  private final MemorySegment oddSegment = MemorySegment.ofArray(oddBits);
  private final float[] blockOperands = new float[BlockSums.CAPACITY];

  private Bf16Blocks() {}

  /** {@code destination[offset + i] = element(sourceIndex + i)} for i below {@code length}. */
  static void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    Bf16Blocks scratch = SCRATCH.get();
    MemorySegment target = MemorySegment.ofArray(destination);
    int done = 0;
    while (length - done >= 2) {
      int pairs = Math.min(PAIRS, (length - done) / 2);
      scratch.widen(source, (sourceIndex + done) * 2, pairs);
      MemorySegment.copy(scratch.fp32Pairs, 0, target, PAIR_OF_FP32, (offset + done) * 4L, pairs);
      done += 2 * pairs;
    }
    if (done < length) {
      destination[offset + done] = Bf16.toFloat(source.get(BF16, (sourceIndex + done) * 2));
    }
  }

  /** {@code sums[offset + i] += element(sourceIndex + i)} for i below {@code length}. */
  static void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    Bf16Blocks scratch = SCRATCH.get();
    float[] operands = scratch.operands;
    int done = 0;
    while (length - done >= 2) {
      int pairs = Math.min(PAIRS, (length - done) / 2);
      scratch.widen(source, (sourceIndex + done) * 2, pairs);
      MemorySegment.copy(scratch.fp32Pairs, 0, scratch.operandSegment, PAIR_OF_FP32, 0, pairs);
      // Summing at the same index in two scratch arrays is what the JIT vectorizes; at different
      // offsets into arrays that might be one and the same, it must not.
      float[] partials = scratch.partials;
      System.arraycopy(sums, offset + done, partials, 0, 2 * pairs);
      for (int i = 0; i < 2 * pairs; i++) {
        partials[i] += operands[i];
      }
      System.arraycopy(partials, 0, sums, offset + done, 2 * pairs);
      done += 2 * pairs;
    }
    if (done < length) {
      sums[offset + done] += Bf16.toFloat(source.get(BF16, (sourceIndex + done) * 2));
    }
  }

  /**
   * Stores {@code values[offset + i]}, rounded to nearest even, at {@code destinationIndex + i}.
   */
  static void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    Bf16Blocks scratch = SCRATCH.get();
    MemorySegment source = MemorySegment.ofArray(values);
    int[] bf16Pairs = scratch.bf16Pairs;
    long[] fp32Pairs = scratch.fp32Pairs;
    int done = 0;
    while (length - done >= 2) {
      int pairs = Math.min(PAIRS, (length - done) / 2);
      MemorySegment.copy(source, PAIR_OF_FP32, (offset + done) * 4L, fp32Pairs, 0, pairs);
      for (int j = 0; j < pairs; j++) {
        long rounded = roundBoth(fp32Pairs[j]);
        bf16Pairs[j] = ((int) (rounded >>> 16) & 0xffff) | ((int) (rounded >>> 32) & 0xffff_0000);
      }
      MemorySegment.copy(
          bf16Pairs, 0, destination, PAIR_OF_BF16, (destinationIndex + done) * 2, pairs);
      done += 2 * pairs;
    }
    if (done < length) {
      destination.set(BF16, (destinationIndex + done) * 2, Bf16.fromFloat(values[offset + done]));
    }
  }

  /** {@code sums} = the {@code length} elements from {@code sourceIndex}, in block order. */
  static void loadSplit(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    int pairs = splitPairs(length);
    Bf16Blocks scratch = SCRATCH.get();
    scratch.split(source, sourceIndex * 2, pairs);
    float[] values = sums.values;
    MemorySegment.copy(scratch.evenSegment, FP32, 0, values, 0, pairs);
    MemorySegment.copy(scratch.oddSegment, FP32, 0, values, pairs, pairs);
    if (2 * pairs < length) {
      values[2 * pairs] = Bf16.toFloat(source.get(BF16, (sourceIndex + 2 * pairs) * 2));
    }
  }

  /** {@code sums +=} the {@code length} elements from {@code sourceIndex}, in block order. */
  static void accumulateSplit(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    int pairs = splitPairs(length);
    Bf16Blocks scratch = SCRATCH.get();
    scratch.split(source, sourceIndex * 2, pairs);
    float[] operands = scratch.blockOperands;
    MemorySegment.copy(scratch.evenSegment, FP32, 0, operands, 0, pairs);
    MemorySegment.copy(scratch.oddSegment, FP32, 0, operands, pairs, pairs);
    if (2 * pairs < length) {
      operands[2 * pairs] = Bf16.toFloat(source.get(BF16, (sourceIndex + 2 * pairs) * 2));
    }
    // The same index into both arrays: the JIT vectorizes this even if they might be one.
    float[] values = sums.values;
    for (int i = 0; i < length; i++) {
      values[i] += operands[i];
    }
  }

  /** Stores {@code sums}, in block order, rounded to nearest even as {@code length} elements. */
  static void storeSplit(
      BlockSums sums, MemorySegment destination, long destinationIndex, int length) {
    int pairs = splitPairs(length);
    int[] blockPairs = SCRATCH.get().blockPairs;
    // The sums' bits, read through their segment: cheaper than copying them into int arrays.
    MemorySegment bits = sums.segment;
    long oddOffset = 4L * pairs;
    for (int j = 0; j < pairs; j++) {
      int even = bits.get(FP32_BITS, 4L * j);
      int odd = bits.get(FP32_BITS, oddOffset + 4L * j);
      blockPairs[j] = (roundToUpperHalf(even) >>> 16) | (roundToUpperHalf(odd) & UPPER_HALF);
    }
    MemorySegment.copy(blockPairs, 0, destination, PAIR_OF_BF16, destinationIndex * 2, pairs);
    if (2 * pairs < length) {
      destination.set(
          BF16, (destinationIndex + 2 * pairs) * 2, Bf16.fromFloat(sums.values[2 * pairs]));
    }
  }

  /** Whole pairs in a block of {@code length} elements; refuses a block longer than the sums. */
  static int splitPairs(int length) {
    if (length < 0 || length > BlockSums.CAPACITY) {
      throw new IllegalArgumentException(
          "a block holds 0 to %d elements, got %d".formatted(BlockSums.CAPACITY, length));
    }
    return length / 2;
  }

  /** Fills {@code evenBits} and {@code oddBits} with the fp32 bits of the pairs at the offset. */
  private void split(MemorySegment source, long byteOffset, int pairs) {
    int[] blockPairs = this.blockPairs;
    int[] evenBits = this.evenBits;
    int[] oddBits = this.oddBits;
    MemorySegment.copy(source, PAIR_OF_BF16, byteOffset, blockPairs, 0, pairs);
    for (int j = 0; j < pairs; j++) {
      int pair = blockPairs[j];
      evenBits[j] = pair << 16;
      oddBits[j] = pair & UPPER_HALF;
    }
  }

  /**
   * fp32 bits rounded to the nearest bf16, ties to even, in the upper half: {@link Bf16#fromFloat}
   * without a branch, so that it vectorizes.
   */
  static int roundToUpperHalf(int bits) {
    // All ones exactly when the magnitude is above infinity's, i.e. for a NaN.
    int nanMask = ((bits & 0x7fff_ffff) + 0x007f_ffff) >> 31;
    int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
    // A NaN keeps its upper bits with the quiet bit set, so truncation cannot make it infinity.
    return (rounded & ~nanMask) | ((bits | 0x0040_0000) & nanMask);
  }

  /**
   * Fills {@code fp32Pairs[0, pairs)} with the fp32 bits of the bf16 pairs at {@code byteOffset}.
   */
  private void widen(MemorySegment source, long byteOffset, int pairs) {
    int[] bf16Pairs = this.bf16Pairs;
    long[] fp32Pairs = this.fp32Pairs;
    MemorySegment.copy(source, PAIR_OF_BF16, byteOffset, bf16Pairs, 0, pairs);
    for (int j = 0; j < pairs; j++) {
      int pair = bf16Pairs[j];
      // bf16 bits are the upper half of the fp32 bits.
      fp32Pairs[j] = ((long) (pair & 0xffff_0000) << 32) | ((long) (pair << 16) & LOW_HALVES);
    }
  }

  /**
   * Both fp32 halves of {@code fp32Pair} rounded to bf16, each result in the upper 16 bits of its
   * half: {@link Bf16#fromFloat} on each half without letting a carry cross into the other.
   */
  private static long roundBoth(long fp32Pair) {
    // Bit 31 of a half is set exactly when its magnitude is above infinity's, i.e. it is a NaN.
    long nanBits = ((fp32Pair & ABSOLUTE) + NAN_CARRY) & SIGN_BITS;
    long nanMask = (nanBits - (nanBits >>> 31)) | nanBits;
    // With NaN halves cleared, adding the bias cannot carry out of a half.
    long numbers = fp32Pair & ~nanMask;
    long rounded = numbers + ROUNDING + ((numbers >>> 16) & LOW_BITS);
    // A NaN keeps its upper bits with the quiet bit set, so truncation cannot make it infinity.
    return (rounded & ~nanMask) | ((fp32Pair | QUIET) & nanMask);
  }
}
