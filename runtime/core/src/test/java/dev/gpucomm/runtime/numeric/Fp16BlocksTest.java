package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Fp16BlocksTest {
  private static final ValueLayout.OfShort FP16 = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final int HALVES = 1 << 16;

  @Test
  void everyHalfLoadsToTheSameFp32BitsAsTheElementPath() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment everyHalf = everyHalf(arena);
      // Whole, and shifted so that blocks, pairs and odd tails fall elsewhere.
      int[][] windows = {{0, 0, HALVES}, {1, 3, HALVES - 1}, {HALVES - 5, 2, 5}, {0x7c01, 0, 1}};
      for (int[] window : windows) {
        int sourceIndex = window[0];
        int offset = window[1];
        int length = window[2];
        float[] loaded = new float[offset + length];
        Fp16Blocks.load(everyHalf, sourceIndex, loaded, offset, length);
        for (int i = 0; i < length; i++) {
          short half = (short) (sourceIndex + i);
          float element = Fp16.toFloat(half);
          if (Float.floatToRawIntBits(loaded[offset + i]) != Float.floatToRawIntBits(element)) {
            fail(
                "half %04x loaded as %08x, the element path gives %08x",
                half & 0xffff,
                Float.floatToRawIntBits(loaded[offset + i]),
                Float.floatToRawIntBits(element));
          }
          if (!Float.isNaN(element)) {
            assertThat(loaded[offset + i]).isEqualTo(Float.float16ToFloat(half));
          }
        }
      }
    }
  }

  @Test
  void accumulatingEveryHalfAddsWhatTheElementPathAdds() {
    SplittableRandom random = new SplittableRandom(16);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment everyHalf = everyHalf(arena);
      for (int trial = 0; trial < 20; trial++) {
        int sourceIndex = random.nextInt(0, 64);
        int offset = random.nextInt(0, 64);
        int length = HALVES - sourceIndex - random.nextInt(0, 64);
        float[] blocks = new float[offset + length];
        for (int i = 0; i < blocks.length; i++) {
          blocks[i] = (float) random.nextGaussian() * 1000f;
        }
        float[] elements = blocks.clone();
        Fp16Blocks.accumulate(everyHalf, sourceIndex, blocks, offset, length);
        for (int i = 0; i < length; i++) {
          elements[offset + i] += Fp16.toFloat(everyHalf.get(FP16, 2L * (sourceIndex + i)));
        }
        assertThat(sameValues(blocks, elements)).as("trial %d", trial).isTrue();
      }
    }
  }

  @Test
  void aSignallingNaNAloneInAnOddTailKeepsItsBits() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment halves = arena.allocate(2L * 3);
      halves.set(FP16, 0, (short) 0x3c00); // 1.0
      halves.set(FP16, 2, (short) 0x4000); // 2.0
      halves.set(FP16, 4, (short) 0xfc01); // negative signalling NaN, payload 1
      float[] loaded = new float[3];

      Fp16Blocks.load(halves, 0, loaded, 0, 3);

      assertThat(loaded[0]).isEqualTo(1f);
      assertThat(loaded[1]).isEqualTo(2f);
      assertThat(Float.floatToRawIntBits(loaded[2])).isEqualTo(0xff80_2000);
    }
  }

  @Test
  void storingEveryBoundaryAndMidpointOfTheHalvesRoundsLikeTheElementPath() {
    float[] values = new float[8 * 0x7c00];
    int count = 0;
    for (int bits = 0; bits < 0x7c00; bits++) {
      float value = Fp16.toFloat((short) bits);
      // Past the largest half (65504) the next step would be 2^16: their midpoint is the
      // overflow tie, 65520, which rounds to infinity.
      float next = bits == 0x7bff ? 0x1p16f : Fp16.toFloat((short) (bits + 1));
      // exact in fp32, which has 13 more significand bits than a half
      float midpoint = (float) (((double) value + next) / 2);
      for (float candidate :
          new float[] {value, midpoint, Math.nextDown(midpoint), Math.nextUp(midpoint)}) {
        values[count++] = candidate;
        values[count++] = -candidate;
      }
    }
    assertStoresLikeTheElementPath(Arrays.copyOf(values, count));
  }

  @Test
  void storingTheSubnormalRangeDenselyRoundsLikeTheElementPath() {
    // Every 64th fp32 from 2^-26 (rounds to zero) to 2^-14 (the smallest normal half).
    int first = Float.floatToRawIntBits(0x1p-26f);
    int last = Float.floatToRawIntBits(0x1p-14f);
    float[] values = new float[2 * ((last - first) / 64 + 1)];
    int count = 0;
    for (int bits = first; bits <= last; bits += 64) {
      values[count++] = Float.intBitsToFloat(bits);
      values[count++] = -Float.intBitsToFloat(bits);
    }
    assertStoresLikeTheElementPath(Arrays.copyOf(values, count));
  }

  @Test
  void storingZerosInfinitiesNaNsAndOverflowingValuesGivesTheElementPathsBits() {
    float[] values = {
      0f,
      -0f,
      Float.MIN_VALUE,
      -Float.MIN_VALUE,
      0x1p-25f, // tie between zero and the smallest subnormal: zero is even
      Math.nextUp(0x1p-25f),
      0x1p-14f - 0x1p-25f, // rounds up into the smallest normal
      65504f,
      65519.996f,
      65520f, // tie between 65504 and the next power, which is infinity
      -65520f,
      65536f,
      Float.MAX_VALUE,
      -Float.MAX_VALUE,
      Float.POSITIVE_INFINITY,
      Float.NEGATIVE_INFINITY,
      Float.NaN,
      Float.intBitsToFloat(0x7f80_0001), // signalling, payload below the bits a half keeps
      Float.intBitsToFloat(0xff80_2000), // signalling, payload a half keeps
      Float.intBitsToFloat(0x7fff_ffff),
      Float.intBitsToFloat(0xffc0_0000),
      1f,
    };
    short[] stored = stored(values, 0, values.length);
    for (int i = 0; i < values.length; i++) {
      assertThat(stored[i])
          .as("fp16 bits of %s", Float.toHexString(values[i]))
          .isEqualTo(Fp16.fromFloat(values[i]));
    }
    assertThat(stored[9]).isEqualTo((short) 0x7c00);
    assertThat(stored[10]).isEqualTo((short) 0xfc00);
    assertThat(stored[17] & 0x7fff).isGreaterThan(0x7c00); // still a NaN, not infinity
  }

  @Test
  void storingAMillionSeededRandomFloatsRoundsLikeTheElementPath() {
    SplittableRandom random = new SplittableRandom(0xf16b);
    float[] values = new float[1_000_000];
    for (int i = 0; i < values.length; i++) {
      values[i] =
          switch (i % 3) {
            case 0 -> Float.intBitsToFloat(random.nextInt()); // every exponent, NaNs included
            case 1 -> Float.intBitsToFloat(random.nextInt(0x3280_0000, 0x4790_0000)); // half range
            default -> (float) random.nextGaussian();
          };
    }
    assertStoresLikeTheElementPath(values);
  }

  @Test
  void storingWritesOnlyTheRangeAskedFor() {
    SplittableRandom random = new SplittableRandom(17);
    float[] values = new float[5000];
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) random.nextGaussian();
    }
    try (Arena arena = Arena.ofConfined()) {
      for (int trial = 0; trial < 100; trial++) {
        int offset = random.nextInt(0, 400);
        int destinationIndex = random.nextInt(0, 400);
        int length = random.nextInt(0, values.length - 400);
        MemorySegment blocks = arena.allocate(2L * (destinationIndex + length + 1));
        MemorySegment elements = arena.allocate(blocks.byteSize());
        Fp16Blocks.store(values, offset, blocks, destinationIndex, length);
        for (int i = 0; i < length; i++) {
          elements.set(FP16, 2L * (destinationIndex + i), Fp16.fromFloat(values[offset + i]));
        }
        assertThat(blocks.mismatch(elements)).as("trial %d", trial).isEqualTo(-1);
      }
    }
  }

  /** Stores {@code values} whole and in windows that move the block and pair boundaries. */
  private static void assertStoresLikeTheElementPath(float[] values) {
    int[][] windows = {{0, values.length}, {1, values.length - 1}, {3, values.length - 8}};
    for (int[] window : windows) {
      int offset = window[0];
      int length = window[1];
      short[] stored = stored(values, offset, length);
      for (int i = 0; i < length; i++) {
        float value = values[offset + i];
        short element = Fp16.fromFloat(value);
        if (stored[i] != element) {
          fail(
              "fp32 %08x stored as %04x, the element path gives %04x",
              Float.floatToRawIntBits(value), stored[i], element);
        }
        if (!Float.isNaN(value) && stored[i] != Float.floatToFloat16(value)) {
          fail(
              "fp32 %08x stored as %04x, the JDK says %04x",
              Float.floatToRawIntBits(value), stored[i], Float.floatToFloat16(value));
        }
      }
    }
  }

  private static short[] stored(float[] values, int offset, int length) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment destination = arena.allocate(2L * length + 2);
      Fp16Blocks.store(values, offset, destination, 1, length);
      short[] stored = new short[length];
      MemorySegment.copy(destination, FP16, 2, stored, 0, length);
      return stored;
    }
  }

  private static MemorySegment everyHalf(Arena arena) {
    MemorySegment segment = arena.allocate(2L * HALVES);
    for (int bits = 0; bits < HALVES; bits++) {
      segment.set(FP16, 2L * bits, (short) bits);
    }
    return segment;
  }

  /** Equal bits, except that the payload of a NaN sum is the hardware's business. */
  private static boolean sameValues(float[] actual, float[] expected) {
    for (int i = 0; i < actual.length; i++) {
      boolean bothNaN = Float.isNaN(actual[i]) && Float.isNaN(expected[i]);
      if (!bothNaN && Float.floatToRawIntBits(actual[i]) != Float.floatToRawIntBits(expected[i])) {
        return false;
      }
    }
    return true;
  }
}
