package dev.gpucomm.runtime.numeric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The block methods of {@link Bf16Blocks} in the JDK's Vector API: the same block order (even
 * elements, then odd ones, then the last element of an odd length) and bit-identical values, in one
 * pass from memory to the sums instead of several through scratch arrays. Loaded only where {@link
 * VectorUnits#IN_USE}, since the module may be absent.
 *
 * <p>A lane holds a pair of bf16 elements read as one little-endian int: the element at the lower
 * address is its low half. Shifting it up 16 bits gives the even element's fp32 bits, masking off
 * the low half the odd one's; fp32 bits reinterpreted as floats are the elements' exact values.
 */
final class Bf16VectorBlocks {
  private static final VectorSpecies<Integer> PAIRS = IntVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
  private static final ByteOrder LITTLE = ByteOrder.LITTLE_ENDIAN;
  private static final int UPPER_HALF = 0xffff_0000;
  // Native order, little-endian wherever this class is used (Bf16Blocks.SUPPORTED).
  private static final ValueLayout.OfInt PAIR = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfShort ELEMENT = ValueLayout.JAVA_SHORT_UNALIGNED;

  private Bf16VectorBlocks() {}

  /** {@code sums} = the {@code length} elements from {@code sourceIndex}, in block order. */
  static void loadSplit(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    int pairs = Bf16Blocks.splitPairs(length);
    float[] values = sums.values;
    long base = sourceIndex * 2;
    int j = 0;
    for (int bound = PAIRS.loopBound(pairs); j < bound; j += PAIRS.length()) {
      IntVector pair = IntVector.fromMemorySegment(PAIRS, source, base + 4L * j, LITTLE);
      even(pair).intoArray(values, j);
      odd(pair).intoArray(values, pairs + j);
    }
    for (; j < pairs; j++) {
      int pair = source.get(PAIR, base + 4L * j);
      values[j] = Float.intBitsToFloat(pair << 16);
      values[pairs + j] = Float.intBitsToFloat(pair & UPPER_HALF);
    }
    if (2 * pairs < length) {
      values[2 * pairs] = Bf16.toFloat(source.get(ELEMENT, base + 4L * pairs));
    }
  }

  /** {@code sums +=} the {@code length} elements from {@code sourceIndex}, in block order. */
  static void accumulateSplit(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    int pairs = Bf16Blocks.splitPairs(length);
    float[] values = sums.values;
    long base = sourceIndex * 2;
    int j = 0;
    for (int bound = PAIRS.loopBound(pairs); j < bound; j += PAIRS.length()) {
      IntVector pair = IntVector.fromMemorySegment(PAIRS, source, base + 4L * j, LITTLE);
      FloatVector.fromArray(FLOATS, values, j).add(even(pair)).intoArray(values, j);
      FloatVector.fromArray(FLOATS, values, pairs + j).add(odd(pair)).intoArray(values, pairs + j);
    }
    for (; j < pairs; j++) {
      int pair = source.get(PAIR, base + 4L * j);
      values[j] += Float.intBitsToFloat(pair << 16);
      values[pairs + j] += Float.intBitsToFloat(pair & UPPER_HALF);
    }
    if (2 * pairs < length) {
      values[2 * pairs] += Bf16.toFloat(source.get(ELEMENT, base + 4L * pairs));
    }
  }

  /** Stores {@code sums}, in block order, rounded to nearest even as {@code length} elements. */
  static void storeSplit(
      BlockSums sums, MemorySegment destination, long destinationIndex, int length) {
    int pairs = Bf16Blocks.splitPairs(length);
    float[] values = sums.values;
    long base = destinationIndex * 2;
    int j = 0;
    for (int bound = PAIRS.loopBound(pairs); j < bound; j += PAIRS.length()) {
      IntVector even = roundToUpperHalf(FloatVector.fromArray(FLOATS, values, j));
      IntVector odd = roundToUpperHalf(FloatVector.fromArray(FLOATS, values, pairs + j));
      even.lanewise(VectorOperators.LSHR, 16)
          .or(odd.and(UPPER_HALF))
          .intoMemorySegment(destination, base + 4L * j, LITTLE);
    }
    for (; j < pairs; j++) {
      int even = Bf16Blocks.roundToUpperHalf(Float.floatToRawIntBits(values[j]));
      int odd = Bf16Blocks.roundToUpperHalf(Float.floatToRawIntBits(values[pairs + j]));
      destination.set(PAIR, base + 4L * j, (even >>> 16) | (odd & UPPER_HALF));
    }
    if (2 * pairs < length) {
      destination.set(ELEMENT, base + 4L * pairs, Bf16.fromFloat(values[2 * pairs]));
    }
  }

  /**
   * {@link ElementCodec#sumInto} in one pass: each vector of pairs is summed over the terms in
   * registers, in the terms' order, and rounded; the same values as the three block methods.
   */
  static void sumInto(
      MemorySegment[] terms,
      long[] termIndices,
      int termCount,
      MemorySegment destination,
      long destinationIndex,
      int length) {
    int pairs = Bf16Blocks.splitPairs(length);
    long base = destinationIndex * 2;
    int j = 0;
    for (int bound = PAIRS.loopBound(pairs); j < bound; j += PAIRS.length()) {
      IntVector pair =
          IntVector.fromMemorySegment(PAIRS, terms[0], termIndices[0] * 2 + 4L * j, LITTLE);
      FloatVector evenSum = even(pair);
      FloatVector oddSum = odd(pair);
      for (int term = 1; term < termCount; term++) {
        pair =
            IntVector.fromMemorySegment(PAIRS, terms[term], termIndices[term] * 2 + 4L * j, LITTLE);
        evenSum = evenSum.add(even(pair));
        oddSum = oddSum.add(odd(pair));
      }
      roundToUpperHalf(evenSum)
          .lanewise(VectorOperators.LSHR, 16)
          .or(roundToUpperHalf(oddSum).and(UPPER_HALF))
          .intoMemorySegment(destination, base + 4L * j, LITTLE);
    }
    for (; j < pairs; j++) {
      int pair = terms[0].get(PAIR, termIndices[0] * 2 + 4L * j);
      float evenSum = Float.intBitsToFloat(pair << 16);
      float oddSum = Float.intBitsToFloat(pair & UPPER_HALF);
      for (int term = 1; term < termCount; term++) {
        pair = terms[term].get(PAIR, termIndices[term] * 2 + 4L * j);
        evenSum += Float.intBitsToFloat(pair << 16);
        oddSum += Float.intBitsToFloat(pair & UPPER_HALF);
      }
      int even = Bf16Blocks.roundToUpperHalf(Float.floatToRawIntBits(evenSum));
      int odd = Bf16Blocks.roundToUpperHalf(Float.floatToRawIntBits(oddSum));
      destination.set(PAIR, base + 4L * j, (even >>> 16) | (odd & UPPER_HALF));
    }
    if (2 * pairs < length) {
      long last = 2L * pairs;
      float sum = Bf16.toFloat(terms[0].get(ELEMENT, (termIndices[0] + last) * 2));
      for (int term = 1; term < termCount; term++) {
        sum += Bf16.toFloat(terms[term].get(ELEMENT, (termIndices[term] + last) * 2));
      }
      destination.set(ELEMENT, (destinationIndex + last) * 2, Bf16.fromFloat(sum));
    }
  }

  private static FloatVector even(IntVector pair) {
    return pair.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
  }

  private static FloatVector odd(IntVector pair) {
    return pair.and(UPPER_HALF).reinterpretAsFloats();
  }

  /** {@link Bf16Blocks#roundToUpperHalf} on every lane. */
  private static IntVector roundToUpperHalf(FloatVector values) {
    IntVector bits = values.reinterpretAsInts();
    // All ones exactly in the lanes whose magnitude is above infinity's, i.e. the NaNs.
    IntVector nanMask = bits.and(0x7fff_ffff).add(0x007f_ffff).lanewise(VectorOperators.ASHR, 31);
    IntVector rounded = bits.add(0x7fff).add(bits.lanewise(VectorOperators.LSHR, 16).and(1));
    return rounded.and(nanMask.not()).or(bits.or(0x0040_0000).and(nanMask));
  }
}
