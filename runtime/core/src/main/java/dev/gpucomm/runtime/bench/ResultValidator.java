package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.ResultTolerance;
import dev.gpucomm.runtime.report.HumanUnits;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Checks one rank's output of a collective against a float64 reference computed from every rank's
 * regenerated input ({@link InputData}). Reductions must lie within {@link ResultTolerance};
 * gathers, broadcasts and permutes move data and must be bit-exact. Poisoned (NaN) elements that a
 * kernel forgot to write fail both checks.
 */
public final class ResultValidator {
  private static final double TINY = 1e-30;

  private final InputData inputs;
  private final ElementCodec codec;
  private final DType dtype;
  private final int worldSize;
  private final int ranksPerPod;
  private final int rank;
  // Scratch for one block, allocated once per validator.
  private final float[] got = new float[InputData.BLOCK_ELEMENTS];
  private final float[] values = new float[InputData.BLOCK_ELEMENTS];
  private final double[] sums = new double[InputData.BLOCK_ELEMENTS];
  private final double[] magnitudes = new double[InputData.BLOCK_ELEMENTS];

  /** A validator for ranks that all share one pod. */
  public ResultValidator(InputData inputs, DType dtype, int worldSize, int rank) {
    this(inputs, dtype, worldSize, worldSize, rank);
  }

  /** A validator for {@code worldSize} ranks in pods of {@code ranksPerPod}. */
  public ResultValidator(InputData inputs, DType dtype, int worldSize, int ranksPerPod, int rank) {
    this.inputs = inputs;
    this.codec = ElementCodec.of(dtype);
    this.dtype = dtype;
    this.worldSize = worldSize;
    this.ranksPerPod = ranksPerPod;
    this.rank = rank;
  }

  /** Running worst case over a validation. */
  private static final class Worst {
    long index = -1;
    double got;
    double expected;
    double error;
    double bound;
    double ratio = -1;
    long wrong;
    double maxRelativeError;
  }

  /**
   * Validates {@code output} (this rank's output, downloaded to the host) of a collective with
   * {@code shape} run by {@code algorithm} on the inputs of {@code point}.
   *
   * @return the largest error relative to Σ|x| (0 for data movement)
   * @throws ResultMismatchException naming the algorithm, size, rank and worst element
   */
  public double validate(
      CollectiveShape shape, Algorithm algorithm, int point, MemorySegment output) {
    long count = shape.bytes() / codec.bytes();
    Worst worst = new Worst();
    ResultTolerance tolerance = new ResultTolerance(algorithm, dtype, worldSize, ranksPerPod);
    switch (shape.collective()) {
      case ALLREDUCE -> checkSum(output, 0, 0, count, point, tolerance, worst);
      case REDUCESCATTER -> checkSum(output, 0, rank * count, count, point, tolerance, worst);
      case BROADCAST -> checkCopy(output, 0, 0, count, point, worst);
      case ALLGATHER, COLLECTIVEPERMUTE -> {
        for (int source = 0; source < worldSize; source++) {
          checkCopy(output, source * count, source, count, point, worst);
        }
      }
    }
    if (worst.wrong > 0) {
      throw new ResultMismatchException(describe(shape, algorithm, count, worst));
    }
    return worst.maxRelativeError;
  }

  /** Output elements [outFirst, outFirst+count) must be Σ over ranks of inputs from inFirst. */
  private void checkSum(
      MemorySegment output,
      long outFirst,
      long inFirst,
      long count,
      int point,
      ResultTolerance tolerance,
      Worst worst) {
    long done = 0;
    while (done < count) {
      long in = inFirst + done;
      int length =
          (int) Math.min(count - done, InputData.BLOCK_ELEMENTS - in % InputData.BLOCK_ELEMENTS);
      java.util.Arrays.fill(sums, 0, length, 0.0);
      java.util.Arrays.fill(magnitudes, 0, length, 0.0);
      for (int source = 0; source < worldSize; source++) {
        inputs.values(codec, source, point, in, values, length);
        for (int i = 0; i < length; i++) {
          sums[i] += values[i];
          magnitudes[i] += Math.abs(values[i]);
        }
      }
      codec.load(output, outFirst + done, got, 0, length);
      for (int i = 0; i < length; i++) {
        double error = Math.abs(got[i] - sums[i]);
        double bound = tolerance.bound(sums[i], magnitudes[i]);
        double relative = error / Math.max(magnitudes[i], TINY);
        if (!(relative <= worst.maxRelativeError)) {
          worst.maxRelativeError = Double.isNaN(relative) ? Double.POSITIVE_INFINITY : relative;
        }
        record(worst, outFirst + done + i, got[i], sums[i], error, bound);
      }
      done += length;
    }
  }

  /** Output elements [outFirst, outFirst+count) must equal rank source's input, bit for bit. */
  private void checkCopy(
      MemorySegment output, long outFirst, int source, long count, int point, Worst worst) {
    long done = 0;
    while (done < count) {
      int length =
          (int) Math.min(count - done, InputData.BLOCK_ELEMENTS - done % InputData.BLOCK_ELEMENTS);
      inputs.values(codec, source, point, done, values, length);
      codec.load(output, outFirst + done, got, 0, length);
      for (int i = 0; i < length; i++) {
        if (Float.floatToRawIntBits(got[i]) != Float.floatToRawIntBits(values[i])) {
          record(worst, outFirst + done + i, got[i], values[i], Math.abs(got[i] - values[i]), 0);
        }
      }
      done += length;
    }
  }

  private static void record(
      Worst worst, long index, double got, double expected, double error, double bound) {
    boolean wrong = !(error <= bound);
    if (!wrong) {
      return;
    }
    worst.wrong++;
    double ratio = Double.isNaN(error) ? Double.POSITIVE_INFINITY : error / Math.max(bound, TINY);
    if (ratio > worst.ratio) {
      worst.ratio = ratio;
      worst.index = index;
      worst.got = got;
      worst.expected = expected;
      worst.error = error;
      worst.bound = bound;
    }
  }

  private String describe(CollectiveShape shape, Algorithm algorithm, long count, Worst worst) {
    long outputCount = shape.outputBytes() / codec.bytes();
    return String.format(
        Locale.ROOT,
        "%s %s at %s (%d x %s): rank %d output element %d is %s, expected %s (error %.3g %s);"
            + " %d of %d elements wrong",
        shape.collective(),
        algorithm,
        HumanUnits.binaryBytes(shape.bytes()),
        count,
        dtype,
        rank,
        worst.index,
        number(worst.got),
        number(worst.expected),
        worst.error,
        worst.bound > 0
            ? String.format(Locale.ROOT, "> bound %.3g", worst.bound)
            : "in an exact copy",
        worst.wrong,
        outputCount);
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "NaN (never written)" : String.format(Locale.ROOT, "%.8g", value);
  }
}
