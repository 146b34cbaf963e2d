package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ResultTolerance;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Every rank's random all-reduce input for one (dtype, count), regenerated from seeds on any rank,
 * and the float64 reference sum they imply.
 */
final class RankInputs {
  private final DType dtype;
  private final long count;
  private final int world;
  private final double[] sums;
  private final double[] magnitudes;

  private RankInputs(DType dtype, long count, int world, double[] sums, double[] magnitudes) {
    this.dtype = dtype;
    this.count = count;
    this.world = world;
    this.sums = sums;
    this.magnitudes = magnitudes;
  }

  static long seed(int rank, long count, DType dtype) {
    return 0x9E3779B97F4A7C15L * (rank + 1) ^ (count * 31 + dtype.ordinal());
  }

  /** Writes rank {@code rank}'s input into a native segment of {@code count} elements. */
  static void fill(MemorySegment host, int rank, long count, DType dtype) {
    ElementCodec.of(dtype).fillRandom(host, count, seed(rank, count, dtype));
  }

  static RankInputs reference(DType dtype, long count, int world) {
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("reference of " + count + " elements is too large");
    }
    ElementCodec codec = ElementCodec.of(dtype);
    double[] sums = new double[(int) count];
    double[] magnitudes = new double[(int) count];
    for (int rank = 0; rank < world; rank++) {
      SplittableRandom random = new SplittableRandom(seed(rank, count, dtype));
      for (int i = 0; i < count; i++) {
        double value = codec.nextValue(random);
        sums[i] += value;
        magnitudes[i] += Math.abs(value);
      }
    }
    return new RankInputs(dtype, count, world, sums, magnitudes);
  }

  /**
   * Checks every element against the float64 sum, with the bound of {@code algorithm} (NCCL's ring
   * rounds between hops; gpucomm's kernels round once; null means gpucomm's kernels).
   */
  Verdict validate(MemorySegment output, Algorithm algorithm) {
    ElementCodec codec = ElementCodec.of(dtype);
    ResultTolerance tolerance =
        new ResultTolerance(algorithm == null ? Algorithm.ONESHOT : algorithm, dtype, world);
    double worstRatio = 0;
    double worstRelative = 0;
    long firstBad = -1;
    for (int i = 0; i < count; i++) {
      double actual = codec.read(output, i);
      double bound = tolerance.bound(sums[i], magnitudes[i]);
      double error = Math.abs(actual - sums[i]);
      if (!(error <= bound)) {
        if (firstBad < 0) {
          firstBad = i;
        }
        worstRatio = Double.POSITIVE_INFINITY;
      } else {
        worstRatio = Math.max(worstRatio, error / bound);
      }
      if (magnitudes[i] > 0) {
        worstRelative = Math.max(worstRelative, error / magnitudes[i]);
      }
    }
    String failure =
        firstBad < 0
            ? null
            : "element "
                + firstBad
                + " is "
                + codec.read(output, firstBad)
                + ", expected "
                + sums[(int) firstBad]
                + " ± "
                + tolerance.bound(sums[(int) firstBad], magnitudes[(int) firstBad]);
    return new Verdict(failure, worstRelative);
  }

  /** The outcome of one validation: a failure message (null when it passed). */
  record Verdict(String failure, double maxRelativeError) {
    boolean passed() {
      return failure == null;
    }
  }

  static MemorySegment allocateHost(Arena arena, long count, DType dtype) {
    return arena.allocate(count * dtype.bytes(), 16);
  }
}
