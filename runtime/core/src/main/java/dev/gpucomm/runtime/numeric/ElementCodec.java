package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Reads and writes elements of one {@link DType} in a memory segment as fp32 values, rounding to
 * nearest even on the way in.
 *
 * <p>Indices are in elements, counted from the start of the segment, in native byte order. The bulk
 * methods move blocks through a caller-owned {@code float[]} so that reduction loops make one
 * virtual call per block rather than per element, and allocate nothing.
 */
public sealed interface ElementCodec permits TwoByteCodec, Fp32Codec {

  /** The codec of {@code dtype}; codecs are stateless singletons. */
  static ElementCodec of(DType dtype) {
    return switch (dtype) {
      case BF16 -> Bf16Codec.INSTANCE;
      case FP16 -> Fp16Codec.INSTANCE;
      case FP32 -> Fp32Codec.INSTANCE;
    };
  }

  DType dtype();

  /** Bytes per element. */
  default int bytes() {
    return dtype().bytes();
  }

  /**
   * The unit roundoff u of the type (half the distance from 1 to the next value): rounding a value
   * to this type changes it by at most u relative (for normal values).
   */
  double unitRoundoff();

  /**
   * Half the smallest positive value of the type: the absolute error of rounding values too small
   * for the relative bound (subnormals and underflow to zero).
   */
  double underflowError();

  /** {@code value} rounded to the nearest value of this type. */
  float round(float value);

  float read(MemorySegment segment, long index);

  /** Stores {@code value} rounded to nearest even. */
  void write(MemorySegment segment, long index, float value);

  /** {@code destination[offset + i] = element(sourceIndex + i)} for i below {@code length}. */
  void load(MemorySegment source, long sourceIndex, float[] destination, int offset, int length);

  /** {@code sums[offset + i] += element(sourceIndex + i)} for i below {@code length}. */
  void accumulate(MemorySegment source, long sourceIndex, float[] sums, int offset, int length);

  /** Stores {@code values[offset + i]}, rounded, at {@code destinationIndex + i}. */
  void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length);

  /**
   * {@code sums} = the {@code length} elements from {@code sourceIndex} (at most {@link
   * BlockSums#CAPACITY}), in this codec's block order.
   *
   * <p>The block methods serve reductions, which add blocks element by element and store them back
   * without looking at single sums, so a codec may keep a block's sums in another order than the
   * elements' when its conversions run faster that way; the order depends only on the codec and the
   * length. Partial sums in block order may travel between ranks as raw fp32 values, as long as
   * sender and receiver use the same codec and length. The values are exactly those of {@link
   * #load}, {@link #accumulate} and {@link #store}; in element order by default.
   */
  default void loadBlock(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    load(source, sourceIndex, sums.values, 0, length);
  }

  /** {@code sums += } the {@code length} elements from {@code sourceIndex}, in block order. */
  default void accumulateBlock(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    accumulate(source, sourceIndex, sums.values, 0, length);
  }

  /** Stores the first {@code length} sums, in block order and rounded, as elements. */
  default void storeBlock(
      BlockSums sums, MemorySegment destination, long destinationIndex, int length) {
    store(sums.values, 0, destination, destinationIndex, length);
  }

  /**
   * Stores the sum of {@code termCount} blocks of {@code length} elements (at most {@link
   * BlockSums#CAPACITY}), rounded once, at {@code destinationIndex}: term t is the block of {@code
   * terms[t]} from {@code termIndices[t]}, and the sums run in fp32 in the order of the terms.
   *
   * <p>The values are exactly those of {@link #loadBlock} for the first term, {@link
   * #accumulateBlock} for each other and {@link #storeBlock}, which is how it is done here, through
   * {@code scratch}; a codec may do it in one pass. The destination may be one of the terms at the
   * same index (in place), or lie wholly apart from them; a destination that overlaps a term at
   * another index is not allowed, since a one-pass codec stores part of the block before it has
   * read all of it.
   */
  default void sumInto(
      MemorySegment[] terms,
      long[] termIndices,
      int termCount,
      MemorySegment destination,
      long destinationIndex,
      int length,
      BlockSums scratch) {
    loadBlock(terms[0], termIndices[0], scratch, length);
    for (int term = 1; term < termCount; term++) {
      accumulateBlock(terms[term], termIndices[term], scratch, length);
    }
    storeBlock(scratch, destination, destinationIndex, length);
  }

  /**
   * Fills {@code count} elements with random values in [-1, 1) that this type represents exactly;
   * the same seed gives the same values, so a validator can regenerate any rank's input.
   */
  default void fillRandom(MemorySegment destination, long count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (long index = 0; index < count; index++) {
      write(destination, index, nextValue(random));
    }
  }

  /** The next value of the sequence {@link #fillRandom} writes, for callers that want fp32. */
  default float nextValue(SplittableRandom random) {
    while (true) {
      // nextFloat() is a multiple of 2^-24 in [0, 1), so 2x - 1 is exact in fp32.
      float value = round(2f * random.nextFloat() - 1f);
      if (value < 1f) {
        return value; // rounding can carry 0.9999 up to 1.0: draw again
      }
    }
  }
}
