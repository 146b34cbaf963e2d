package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * The random inputs of a sweep. Rank r's input at point p is a pure function of (seed, r, p), in
 * blocks of {@value #BLOCK_ELEMENTS} elements that each have their own seed: every rank can
 * regenerate any rank's input, block by block, to compute the float64 reference of the whole
 * collective without exchanging data and without holding more than a block of it.
 *
 * <p>Values are uniform in [-1, 1) and exactly representable in the element type (see {@link
 * ElementCodec#fillRandom}); a point's inputs are never all zero.
 */
public final class InputData {
  public static final int BLOCK_ELEMENTS = 4096;

  private final long seed;

  public InputData(long seed) {
    this.seed = seed;
  }

  public long seed() {
    return seed;
  }

  /**
   * Fills {@code count} elements of {@code host} with rank {@code rank}'s input at {@code point}.
   */
  public void fill(MemorySegment host, ElementCodec codec, int rank, int point, long count) {
    for (long block = 0; block * BLOCK_ELEMENTS < count; block++) {
      long first = block * BLOCK_ELEMENTS;
      long length = Math.min(BLOCK_ELEMENTS, count - first);
      codec.fillRandom(
          host.asSlice(first * codec.bytes(), length * codec.bytes()),
          length,
          blockSeed(rank, point, block));
    }
  }

  /**
   * Writes elements {@code [first, first + length)} of rank {@code rank}'s input at {@code point}
   * into {@code values}; the range must lie inside one block.
   */
  public void values(
      ElementCodec codec, int rank, int point, long first, float[] values, int length) {
    long block = first / BLOCK_ELEMENTS;
    if ((first + length - 1) / BLOCK_ELEMENTS != block) {
      throw new IllegalArgumentException("range crosses a block boundary");
    }
    SplittableRandom random = new SplittableRandom(blockSeed(rank, point, block));
    for (long skip = block * BLOCK_ELEMENTS; skip < first; skip++) {
      codec.nextValue(random);
    }
    for (int i = 0; i < length; i++) {
      values[i] = codec.nextValue(random);
    }
  }

  private long blockSeed(int rank, int point, long block) {
    long mixed = mix(seed ^ 0x9E3779B97F4A7C15L * (rank + 1));
    mixed = mix(mixed ^ 0xC2B2AE3D27D4EB4FL * (point + 1));
    return mix(mixed ^ 0x165667B19E3779F9L * (block + 1));
  }

  /** SplitMix64's finalizer: consecutive inputs give unrelated outputs. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
