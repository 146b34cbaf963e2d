package dev.gpucomm.runtime.numeric;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Block conversions between fp16 elements in a memory segment and fp32 values in a {@code float[]},
 * written so that the JIT compiles them to vector instructions.
 *
 * <p>The conversions are the JDK's {@link Float#float16ToFloat} and {@link Float#floatToFloat16},
 * which C2 compiles in loops to the processor's vector conversion instructions where it has them.
 * Both are exact for every number, as {@link Fp16} is: the fp32 value of each half, and fp32
 * rounded to nearest even with subnormals, overflow to infinity and infinities kept. Only the bits
 * of a NaN are left to the platform: the processor quiets a signalling NaN that {@link
 * Fp16#toFloat} keeps as it is, and the JDK's own code (where there is no instruction) keeps
 * payload bits that {@link Fp16#fromFloat} drops. So a block that holds a NaN half takes {@link
 * Fp16}'s element path for its NaN elements, and results are bit-identical to the element path on
 * every platform.
 *
 * <p>NaN halves are found by a scan over pairs of halves read as one {@code int}: bitwise int
 * arithmetic vectorizes, whereas the same test on each {@code short} does not. The test is the same
 * for both halves of a pair, so the byte order does not matter.
 *
 * <p>Each thread gets its own scratch arrays, allocated once.
 */
final class Fp16Blocks {
  /** Elements per pass through the scratch arrays: small enough to stay in L1. */
  private static final int BLOCK = 2048;

  private static final ValueLayout.OfShort FP16 = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final ValueLayout.OfInt PAIR_OF_FP16 = ValueLayout.JAVA_INT_UNALIGNED;

  /** fp16 bits of +infinity: a magnitude above it is a NaN. */
  private static final int INFINITY = 0x7c00;

  /** Clears the sign of both halves of a pair. */
  private static final int MAGNITUDES = 0x7fff_7fff;

  /**
   * Added to both magnitudes of a pair, it carries into bit 15 of a half exactly when that half is
   * a NaN (above {@code 0x7c00}); the lower half's sum stays below {@code 0x1_0000}, so it never
   * carries into the upper half.
   */
  private static final int NAN_CARRY = 0x03ff_03ff;

  private static final int NAN_BITS = 0x8000_8000;

  private static final ThreadLocal<Fp16Blocks> SCRATCH = ThreadLocal.withInitial(Fp16Blocks::new);

  private final short[] halves = new short[BLOCK];
  private final MemorySegment halvesSegment = MemorySegment.ofArray(halves);
  private final int[] pairs = new int[BLOCK / 2];

  private Fp16Blocks() {}

  /** {@code destination[offset + i] = element(sourceIndex + i)} for i below {@code length}. */
  static void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    Fp16Blocks scratch = SCRATCH.get();
    short[] halves = scratch.halves;
    for (int done = 0; done < length; done += BLOCK) {
      int count = Math.min(BLOCK, length - done);
      int first = offset + done;
      MemorySegment.copy(source, FP16, (sourceIndex + done) * 2, halves, 0, count);
      for (int i = 0; i < count; i++) {
        destination[first + i] = Float.float16ToFloat(halves[i]);
      }
      if (scratch.holdsNaN(count)) {
        for (int i = 0; i < count; i++) {
          if (isNaN(halves[i])) {
            destination[first + i] = Fp16.toFloat(halves[i]);
          }
        }
      }
    }
  }

  /** {@code sums[offset + i] += element(sourceIndex + i)} for i below {@code length}. */
  static void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    Fp16Blocks scratch = SCRATCH.get();
    short[] halves = scratch.halves;
    for (int done = 0; done < length; done += BLOCK) {
      int count = Math.min(BLOCK, length - done);
      int first = offset + done;
      MemorySegment.copy(source, FP16, (sourceIndex + done) * 2, halves, 0, count);
      if (scratch.holdsNaN(count)) {
        for (int i = 0; i < count; i++) {
          sums[first + i] += Fp16.toFloat(halves[i]);
        }
      } else {
        for (int i = 0; i < count; i++) {
          sums[first + i] += Float.float16ToFloat(halves[i]);
        }
      }
    }
  }

  /**
   * Stores {@code values[offset + i]}, rounded to nearest even, at {@code destinationIndex + i}.
   */
  static void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    Fp16Blocks scratch = SCRATCH.get();
    short[] halves = scratch.halves;
    for (int done = 0; done < length; done += BLOCK) {
      int count = Math.min(BLOCK, length - done);
      int first = offset + done;
      for (int i = 0; i < count; i++) {
        halves[i] = Float.floatToFloat16(values[first + i]);
      }
      // A half is a NaN exactly when its fp32 value was one.
      if (scratch.holdsNaN(count)) {
        for (int i = 0; i < count; i++) {
          if (isNaN(halves[i])) {
            halves[i] = Fp16.fromFloat(values[first + i]);
          }
        }
      }
      MemorySegment.copy(halves, 0, destination, FP16, (destinationIndex + done) * 2, count);
    }
  }

  /** Whether any of the first {@code count} scratch halves is a NaN. */
  private boolean holdsNaN(int count) {
    int[] pairs = this.pairs;
    int pairCount = count / 2;
    MemorySegment.copy(halvesSegment, PAIR_OF_FP16, 0, pairs, 0, pairCount);
    int carries = 0;
    for (int j = 0; j < pairCount; j++) {
      carries |= (pairs[j] & MAGNITUDES) + NAN_CARRY;
    }
    return (carries & NAN_BITS) != 0 || (count % 2 == 1 && isNaN(halves[count - 1]));
  }

  private static boolean isNaN(short half) {
    return (half & 0x7fff) > INFINITY;
  }
}
