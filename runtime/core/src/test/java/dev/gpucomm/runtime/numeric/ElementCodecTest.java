package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ElementCodecTest {
  private static final int COUNT = 1000;

  @ParameterizedTest
  @EnumSource(DType.class)
  void writtenValuesReadBackRoundedToTheType(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    SplittableRandom random = new SplittableRandom(1);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment segment = arena.allocate((long) COUNT * dtype.bytes());
      float[] written = new float[COUNT];
      for (int i = 0; i < COUNT; i++) {
        written[i] = (float) (random.nextGaussian() * 100);
        codec.write(segment, i, written[i]);
      }
      for (int i = 0; i < COUNT; i++) {
        assertThat(codec.read(segment, i)).isEqualTo(codec.round(written[i]));
      }
      assertThat(segment.byteSize()).isEqualTo((long) COUNT * codec.bytes());
    }
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void bulkLoadAccumulateAndStoreAgreeWithSingleElementAccess(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment first = arena.allocate((long) COUNT * dtype.bytes());
      MemorySegment second = arena.allocate((long) COUNT * dtype.bytes());
      codec.fillRandom(first, COUNT, 11);
      codec.fillRandom(second, COUNT, 12);
      int offset = 7;
      int length = COUNT - 100;
      float[] block = new float[length + offset];
      codec.load(first, 50, block, offset, length);
      codec.accumulate(second, 50, block, offset, length);
      MemorySegment result = arena.allocate((long) COUNT * dtype.bytes());
      codec.store(block, offset, result, 50, length);
      for (int i = 0; i < length; i++) {
        float sum = codec.read(first, 50 + i) + codec.read(second, 50 + i);
        assertThat(block[offset + i]).isEqualTo(sum);
        assertThat(codec.read(result, 50 + i)).isEqualTo(codec.round(sum));
      }
      assertThat(codec.read(result, 49)).isZero(); // nothing written outside the range
      assertThat(codec.read(result, 50 + length)).isZero();
    }
  }

  /**
   * A reduction in blocks, with its partial sums sent raw to another rank half way, as the ring
   * does, stores the same bits as the bulk methods in element order.
   */
  @ParameterizedTest
  @EnumSource(DType.class)
  void blockSumsMovedRawBetweenRanksStoreTheSameBitsAsTheBulkMethods(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    int capacity = BlockSums.CAPACITY;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment[] terms = new MemorySegment[3];
      for (int term = 0; term < terms.length; term++) {
        terms[term] = arena.allocate((long) (capacity + 50) * dtype.bytes());
        codec.fillRandom(terms[term], capacity + 50, 20 + term);
      }
      MemorySegment partialsMessage = arena.allocate(4L * capacity);
      MemorySegment fromBlocks = arena.allocate((long) (capacity + 100) * dtype.bytes());
      MemorySegment fromBulk = arena.allocate((long) (capacity + 100) * dtype.bytes());
      float[] bulk = new float[capacity];
      for (int length : new int[] {0, 1, 2, 7, 1000, capacity - 1, capacity}) {
        BlockSums sender = new BlockSums();
        codec.loadBlock(terms[0], 50, sender, length);
        codec.accumulateBlock(terms[1], 50, sender, length);
        sender.copyTo(partialsMessage, 0, length);
        BlockSums receiver = new BlockSums();
        receiver.copyFrom(partialsMessage, 0, length);
        codec.accumulateBlock(terms[2], 50, receiver, length);
        codec.storeBlock(receiver, fromBlocks, 25, length);

        codec.load(terms[0], 50, bulk, 0, length);
        codec.accumulate(terms[1], 50, bulk, 0, length);
        codec.accumulate(terms[2], 50, bulk, 0, length);
        codec.store(bulk, 0, fromBulk, 25, length);
        assertThat(fromBlocks.mismatch(fromBulk)).as("length %d", length).isEqualTo(-1);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void randomFillIsReproducibleExactAndInsideMinusOneToOne(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    int count = 50_000;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment first = arena.allocate((long) count * dtype.bytes());
      MemorySegment again = arena.allocate((long) count * dtype.bytes());
      MemorySegment otherSeed = arena.allocate((long) count * dtype.bytes());
      codec.fillRandom(first, count, 42);
      codec.fillRandom(again, count, 42);
      codec.fillRandom(otherSeed, count, 43);
      assertThat(first.mismatch(again)).isEqualTo(-1);
      assertThat(first.mismatch(otherSeed)).isNotEqualTo(-1);
      double sum = 0;
      int nonZero = 0;
      SplittableRandom sequence = new SplittableRandom(42);
      for (int i = 0; i < count; i++) {
        float value = codec.read(first, i);
        assertThat(value).isGreaterThanOrEqualTo(-1f).isLessThan(1f);
        assertThat(codec.round(value)).isEqualTo(value);
        assertThat(codec.nextValue(sequence)).isEqualTo(value);
        sum += value;
        nonZero += value != 0 ? 1 : 0;
      }
      assertThat(nonZero).isGreaterThan(count * 99 / 100);
      assertThat(sum / count).isBetween(-0.02, 0.02); // centred on zero
    }
  }
}
