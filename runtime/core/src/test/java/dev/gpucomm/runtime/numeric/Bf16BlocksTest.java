package dev.gpucomm.runtime.numeric;

import static dev.gpucomm.runtime.numeric.FloatValues.sameValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  /**
   * Block order: element 2j of a block of length n sits at position j, element 2j + 1 at position
   * n/2 + j, and the last element of an odd length at the end.
   */
  private static int positionInBlock(int element, int length) {
    int pairs = length / 2;
    if (element == 2 * pairs) {
      return element;
    }
    return element % 2 == 0 ? element / 2 : pairs + element / 2;
  }

  @Test
  void storingBlockSumsOfAnyBitsGivesTheSameBf16BitsAsRoundingOneElementAtATime() {
    SplittableRandom random = new SplittableRandom(9);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment blocks = arena.allocate(2L * CAPACITY);
      MemorySegment elements = arena.allocate(2L * CAPACITY);
      float[] values = new float[BlockSums.CAPACITY];
      BlockSums sums = new BlockSums();
      for (int trial = 0; trial < 300; trial++) {
        fillWithAnyBits(values, random, trial);
        System.arraycopy(values, 0, sums.values, 0, values.length);
        long destinationIndex = random.nextInt(0, 400);
        int length = trial < 2 ? trial : random.nextInt(0, BlockSums.CAPACITY + 1);
        Bf16Blocks.storeSplit(sums, blocks, destinationIndex, length);
        for (int element = 0; element < length; element++) {
          float value = values[positionInBlock(element, length)];
          elements.set(BF16, (destinationIndex + element) * 2, Bf16.fromFloat(value));
        }
        assertThat(blocks.mismatch(elements)).as("trial %d", trial).isEqualTo(-1);
      }
    }
  }

  @Test
  void loadingAndAccumulatingBlocksGiveTheSameFp32BitsAsConvertingOneElementAtATime() {
    SplittableRandom random = new SplittableRandom(10);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment source = arena.allocate(2L * (BlockSums.CAPACITY + 401));
      for (int i = 0; i < BlockSums.CAPACITY + 401; i++) {
        source.set(BF16, 2L * i, (short) random.nextInt());
      }
      BlockSums sums = new BlockSums();
      float[] elements = new float[BlockSums.CAPACITY];
      for (int trial = 0; trial < 300; trial++) {
        long sourceIndex = random.nextInt(0, 400);
        int length = trial < 2 ? trial : random.nextInt(0, BlockSums.CAPACITY + 1);
        Bf16Blocks.loadSplit(source, sourceIndex, sums, length);
        for (int element = 0; element < length; element++) {
          elements[element] = Bf16.toFloat(source.get(BF16, (sourceIndex + element) * 2));
          assertThat(Float.floatToRawIntBits(sums.get(positionInBlock(element, length))))
              .as("load, trial %d, element %d", trial, element)
              .isEqualTo(Float.floatToRawIntBits(elements[element]));
        }
        Bf16Blocks.accumulateSplit(source, sourceIndex + 1, sums, length);
        for (int element = 0; element < length; element++) {
          float sum =
              elements[element] + Bf16.toFloat(source.get(BF16, (sourceIndex + 1 + element) * 2));
          assertThat(sameValue(sums.get(positionInBlock(element, length)), sum))
              .as("accumulate, trial %d, element %d", trial, element)
              .isTrue();
        }
      }
    }
  }

  @Test
  void aBlockLongerThanTheSumsHoldIsRefusedNamingTheLimit() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment source = arena.allocate(4L * BlockSums.CAPACITY);
      assertThatThrownBy(
              () -> Bf16Blocks.loadSplit(source, 0, new BlockSums(), BlockSums.CAPACITY + 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("a block holds 0 to 4096 elements, got 4097");
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
      if (!sameValue(actual[i], expected[i])) {
        return false;
      }
    }
    return true;
  }
}
