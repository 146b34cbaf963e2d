package dev.gpucomm.runtime.numeric;

import static dev.gpucomm.runtime.numeric.FloatValues.sameValue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Vector API block methods against the auto-vectorized ones they stand in for: the same block
 * order and the same bits for any input bits (NaNs, infinities, subnormals, rounding ties), at
 * every length up to a block, including odd lengths and lengths that leave a partial vector.
 */
class Bf16VectorBlocksTest {
  private static final int SPAN = BlockSums.CAPACITY + 401;

  @BeforeEach
  void needsTheVectorApi() {
    assumeTrue(
        VectorUnits.IN_USE,
        "the Vector API is not in this JVM (--add-modules=jdk.incubator.vector)");
  }

  @Test
  void loadingAndAccumulatingGiveTheBitsOfTheAutoVectorizedPath() {
    SplittableRandom random = new SplittableRandom(11);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment source = arena.allocate(2L * SPAN);
      for (int trial = 0; trial < 400; trial++) {
        fillWithAnyBf16(source, random, trial);
        long sourceIndex = random.nextInt(0, 400);
        int length = trial < 70 ? trial : random.nextInt(0, BlockSums.CAPACITY + 1);
        BlockSums vector = new BlockSums();
        BlockSums auto = new BlockSums();
        Bf16VectorBlocks.loadSplit(source, sourceIndex, vector, length);
        Bf16Blocks.loadSplit(source, sourceIndex, auto, length);
        assertThat(bits(vector, length)).as("load, trial %d", trial).isEqualTo(bits(auto, length));
        Bf16VectorBlocks.accumulateSplit(source, sourceIndex + 1, vector, length);
        Bf16Blocks.accumulateSplit(source, sourceIndex + 1, auto, length);
        for (int position = 0; position < length; position++) {
          assertThat(sameValue(vector.get(position), auto.get(position)))
              .as("accumulate, trial %d, position %d", trial, position)
              .isTrue();
        }
      }
    }
  }

  @Test
  void storingGivesTheBf16BitsOfTheAutoVectorizedPath() {
    SplittableRandom random = new SplittableRandom(12);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment vector = arena.allocate(2L * SPAN);
      MemorySegment auto = arena.allocate(2L * SPAN);
      BlockSums sums = new BlockSums();
      for (int trial = 0; trial < 400; trial++) {
        for (int i = 0; i < BlockSums.CAPACITY; i++) {
          sums.values[i] =
              switch (trial % 3) {
                case 0 -> Float.intBitsToFloat(random.nextInt());
                case 1 -> Float.intBitsToFloat((random.nextInt() & 0xffff_0000) | 0x8000);
                default -> (float) random.nextGaussian();
              };
        }
        long destinationIndex = random.nextInt(0, 400);
        int length = trial < 70 ? trial : random.nextInt(0, BlockSums.CAPACITY + 1);
        Bf16VectorBlocks.storeSplit(sums, vector, destinationIndex, length);
        Bf16Blocks.storeSplit(sums, auto, destinationIndex, length);
        assertThat(vector.mismatch(auto)).as("trial %d", trial).isEqualTo(-1);
      }
    }
  }

  @Test
  void summingInOnePassGivesTheBitsOfLoadingAccumulatingAndStoring() {
    SplittableRandom random = new SplittableRandom(13);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment[] terms = new MemorySegment[4];
      for (int term = 0; term < terms.length; term++) {
        terms[term] = arena.allocate(2L * SPAN);
      }
      MemorySegment vector = arena.allocate(2L * SPAN);
      MemorySegment auto = arena.allocate(2L * SPAN);
      BlockSums sums = new BlockSums();
      for (int trial = 0; trial < 400; trial++) {
        for (MemorySegment term : terms) {
          fillWithAnyBf16(term, random, trial);
        }
        int termCount = 1 + trial % terms.length;
        long[] termIndices = new long[terms.length];
        for (int term = 0; term < terms.length; term++) {
          termIndices[term] = random.nextInt(0, 400);
        }
        long destinationIndex = random.nextInt(0, 400);
        int length = trial < 70 ? trial : random.nextInt(0, BlockSums.CAPACITY + 1);

        Bf16VectorBlocks.sumInto(terms, termIndices, termCount, vector, destinationIndex, length);
        Bf16Blocks.loadSplit(terms[0], termIndices[0], sums, length);
        for (int term = 1; term < termCount; term++) {
          Bf16Blocks.accumulateSplit(terms[term], termIndices[term], sums, length);
        }
        Bf16Blocks.storeSplit(sums, auto, destinationIndex, length);

        for (long element = destinationIndex; element < destinationIndex + length; element++) {
          assertThat(sameValue(bf16At(vector, element), bf16At(auto, element)))
              .as("trial %d, %d terms, element %d", trial, termCount, element)
              .isTrue();
        }
      }
    }
  }

  @Test
  void summingInPlaceIntoTheFirstTermGivesWhatSummingElsewhereGives() {
    SplittableRandom random = new SplittableRandom(14);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment own = arena.allocate(2L * SPAN);
      MemorySegment peer = arena.allocate(2L * SPAN);
      MemorySegment elsewhere = arena.allocate(2L * SPAN);
      for (int trial = 0; trial < 100; trial++) {
        fillWithAnyBf16(own, random, trial + 1);
        fillWithAnyBf16(peer, random, trial + 1);
        long index = random.nextInt(0, 400);
        int length = random.nextInt(0, BlockSums.CAPACITY + 1);
        MemorySegment[] terms = {own, peer};
        long[] indices = {index, random.nextInt(0, 400)};

        Bf16VectorBlocks.sumInto(terms, indices, 2, elsewhere, index, length);
        Bf16VectorBlocks.sumInto(terms, indices, 2, own, index, length);

        assertThat(
                own.asSlice(2 * index, 2L * length)
                    .mismatch(elsewhere.asSlice(2 * index, 2L * length)))
            .as("trial %d", trial)
            .isEqualTo(-1);
      }
    }
  }

  @Test
  void aBlockLongerThanTheSumsHoldIsRefusedNamingTheLimit() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment source = arena.allocate(4L * BlockSums.CAPACITY);
      assertThatThrownBy(
              () -> Bf16VectorBlocks.loadSplit(source, 0, new BlockSums(), BlockSums.CAPACITY + 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("a block holds 0 to 4096 elements, got 4097");
    }
  }

  /** Any 16 bits in some trials, plain values of both signs in the others. */
  private static void fillWithAnyBf16(MemorySegment source, SplittableRandom random, int trial) {
    for (int i = 0; i < SPAN; i++) {
      short bits =
          trial % 2 == 0 ? (short) random.nextInt() : Bf16.fromFloat((float) random.nextGaussian());
      source.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2L * i, bits);
    }
  }

  private static float bf16At(MemorySegment elements, long index) {
    return Bf16.toFloat(elements.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2 * index));
  }

  private static int[] bits(BlockSums sums, int length) {
    int[] bits = new int[length];
    for (int i = 0; i < length; i++) {
      bits[i] = Float.floatToRawIntBits(sums.get(i));
    }
    return bits;
  }
}
