package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Bf16BlocksTest {
  private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final int CAPACITY = 5000;

  @Test
  void storingAnyFp32BitsGivesTheSameBf16BitsAsRoundingOneElementAtATime() {
    SplittableRandom random = new SplittableRandom(7);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment blocks = arena.allocate(2L * CAPACITY);
      MemorySegment elements = arena.allocate(2L * CAPACITY);
      float[] values = new float[CAPACITY];
      for (int trial = 0; trial < 300; trial++) {
        fillWithAnyBits(values, random, trial);
        int offset = random.nextInt(0, 400);
        long destinationIndex = random.nextInt(0, 400);
        int length = random.nextInt(0, CAPACITY - 400);
        Bf16Blocks.store(values, offset, blocks, destinationIndex, length);
        for (int i = 0; i < length; i++) {
          elements.set(BF16, (destinationIndex + i) * 2, Bf16.fromFloat(values[offset + i]));
        }
        assertThat(blocks.mismatch(elements)).as("trial %d", trial).isEqualTo(-1);
      }
    }
  }

  @Test
  void loadingAndAccumulatingGiveTheSameFp32BitsAsConvertingOneElementAtATime() {
    SplittableRandom random = new SplittableRandom(8);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment source = arena.allocate(2L * CAPACITY);
      for (int i = 0; i < CAPACITY; i++) {
        source.set(BF16, 2L * i, (short) random.nextInt());
      }
      for (int trial = 0; trial < 300; trial++) {
        int offset = random.nextInt(0, 400);
        long sourceIndex = random.nextInt(0, 400);
        int length = random.nextInt(0, CAPACITY - 400);
        float[] blocks = new float[CAPACITY];
        float[] elements = new float[CAPACITY];
        Arrays.fill(blocks, 0.375f);
        Arrays.fill(elements, 0.375f);
        Bf16Blocks.load(source, sourceIndex, blocks, offset, length);
        for (int i = 0; i < length; i++) {
          elements[offset + i] = Bf16.toFloat(source.get(BF16, (sourceIndex + i) * 2));
        }
        assertThat(bitsOf(blocks)).as("load, trial %d", trial).isEqualTo(bitsOf(elements));
        Bf16Blocks.accumulate(source, sourceIndex + 1, blocks, offset, length);
        for (int i = 0; i < length; i++) {
          elements[offset + i] += Bf16.toFloat(source.get(BF16, (sourceIndex + 1 + i) * 2));
        }
        assertThat(sameValues(blocks, elements)).as("accumulate, trial %d", trial).isTrue();
      }
    }
  }

  /** Random bits (NaNs, infinities, subnormals) in some trials, ties and plain values in others. */
  private static void fillWithAnyBits(float[] values, SplittableRandom random, int trial) {
    for (int i = 0; i < values.length; i++) {
      values[i] =
          switch (trial % 3) {
            case 0 -> Float.intBitsToFloat(random.nextInt());
            case 1 -> Float.intBitsToFloat((random.nextInt() & 0xffff_0000) | 0x8000);
            default -> (float) random.nextGaussian();
          };
    }
  }

  private static int[] bitsOf(float[] values) {
    int[] bits = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      bits[i] = Float.floatToRawIntBits(values[i]);
    }
    return bits;
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
