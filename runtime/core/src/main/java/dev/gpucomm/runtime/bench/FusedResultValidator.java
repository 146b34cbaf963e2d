package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.numeric.Fp8E4m3;
import dev.gpucomm.runtime.numeric.ResidualRmsNormReference;
import dev.gpucomm.runtime.report.HumanUnits;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * Checks one rank's updated residual and normalized output of a fused all-reduce against {@link
 * ResidualRmsNormReference}, the float64 reference of the whole pattern, row by row from every
 * rank's regenerated input ({@link InputData}). The residual and γ are the same on every rank, as
 * in a tensor-parallel layer: they are drawn as the inputs of two extra sources after the ranks.
 * Poisoned (NaN) elements that a kernel forgot to write fail the check.
 */
final class FusedResultValidator {
  private static final double TINY = 1e-30;

  private final InputData inputs;
  private final ElementCodec codec;
  private final DType dtype;
  private final int worldSize;
  private final int rank;
  private final NormEpilogue epilogue;
  // Scratch for one row, allocated once per validator.
  private final float[] block = new float[InputData.BLOCK_ELEMENTS];
  private final float[] residual;
  private final float[] gamma;
  private final float[] rankRow;
  private final float[] got;

  FusedResultValidator(
      InputData inputs, DType dtype, int worldSize, int rank, NormEpilogue epilogue) {
    this.inputs = inputs;
    this.codec = ElementCodec.of(dtype);
    this.dtype = dtype;
    this.worldSize = worldSize;
    this.rank = rank;
    this.epilogue = epilogue;
    int hidden = epilogue.hiddenSize();
    this.residual = new float[hidden];
    this.gamma = new float[hidden];
    this.rankRow = new float[hidden];
    this.got = new float[hidden];
  }

  /** The source whose input at a point is the residual every rank adds. */
  static int residualSource(int worldSize) {
    return worldSize;
  }

  /** The source whose input at a point (its first row) is γ. */
  static int gammaSource(int worldSize) {
    return worldSize + 1;
  }

  /** Running worst case over a validation. */
  private static final class Worst {
    String tensor;
    long row;
    int column;
    double got;
    double expected;
    double error;
    double bound;
    double ratio = -1;
    long wrong;
    double maxRelativeError;
  }

  /**
   * Validates this rank's {@code residualOut} and {@code output} (downloaded to the host) of a
   * fused all-reduce of {@code tokens} rows run by {@code algorithm} on the inputs of {@code
   * point}.
   *
   * @return the largest error relative to the largest magnitude in its row of the same tensor
   * @throws ResultMismatchException naming the pattern, algorithm, size, rank and worst element
   */
  double validate(
      Algorithm algorithm,
      int point,
      long tokens,
      MemorySegment residualOut,
      MemorySegment output) {
    int hidden = epilogue.hiddenSize();
    boolean direct = algorithm == Algorithm.ONESHOT || algorithm == Algorithm.TWOSHOT;
    ResidualRmsNormReference reference =
        new ResidualRmsNormReference(
            dtype, worldSize, hidden, epilogue.epsilon(), !epilogue.fp32Accumulate() || !direct);
    boolean fp8 = epilogue.pattern().quantizesToFp8();
    double scale = epilogue.fp8Scale();
    row(gammaSource(worldSize), point, 0, gamma);
    Worst worst = new Worst();
    for (long row = 0; row < tokens; row++) {
      long first = row * hidden;
      row(residualSource(worldSize), point, first, residual);
      reference.startRow(residual, gamma);
      for (int source = 0; source < worldSize; source++) {
        row(source, point, first, rankRow);
        reference.addRank(rankRow);
      }
      reference.finishRow();

      codec.load(residualOut, first, got, 0, hidden);
      double residualScale = 0;
      for (int i = 0; i < hidden; i++) {
        residualScale = Math.max(residualScale, Math.abs(reference.residualOut(i)));
      }
      for (int i = 0; i < hidden; i++) {
        check(
            worst,
            "residualOut",
            row,
            i,
            got[i],
            reference.residualOut(i),
            reference.residualOutBound(i),
            residualScale);
      }

      if (fp8) {
        for (int i = 0; i < hidden; i++) {
          got[i] = Fp8E4m3.toFloat(output.get(ValueLayout.JAVA_BYTE, first + i)) * (float) scale;
        }
      } else {
        codec.load(output, first, got, 0, hidden);
      }
      double outputScale = 0;
      for (int i = 0; i < hidden; i++) {
        double exact = fp8 ? reference.fp8Out(i, scale) : reference.out(i);
        outputScale = Math.max(outputScale, Math.abs(exact));
      }
      for (int i = 0; i < hidden; i++) {
        double exact = fp8 ? reference.fp8Out(i, scale) : reference.out(i);
        double bound = fp8 ? reference.fp8OutBound(i, scale) : reference.outBound(i);
        check(worst, "output", row, i, got[i], exact, bound, outputScale);
      }
    }
    if (worst.wrong > 0) {
      throw new ResultMismatchException(describe(algorithm, tokens, worst));
    }
    return worst.maxRelativeError;
  }

  /** Elements [first, first + row.length) of {@code source}'s input at {@code point}. */
  private void row(int source, int point, long first, float[] row) {
    int done = 0;
    while (done < row.length) {
      long at = first + done;
      int length =
          (int)
              Math.min(row.length - done, InputData.BLOCK_ELEMENTS - at % InputData.BLOCK_ELEMENTS);
      inputs.values(codec, source, point, at, block, length);
      System.arraycopy(block, 0, row, done, length);
      done += length;
    }
  }

  private static void check(
      Worst worst,
      String tensor,
      long row,
      int column,
      double got,
      double expected,
      double bound,
      double rowScale) {
    double error = Math.abs(got - expected);
    double relative = error / Math.max(rowScale, TINY);
    if (!(relative <= worst.maxRelativeError)) {
      worst.maxRelativeError = Double.isNaN(relative) ? Double.POSITIVE_INFINITY : relative;
    }
    if (error <= bound) {
      return;
    }
    worst.wrong++;
    double ratio = Double.isNaN(error) ? Double.POSITIVE_INFINITY : error / Math.max(bound, TINY);
    if (ratio > worst.ratio) {
      worst.ratio = ratio;
      worst.tensor = tensor;
      worst.row = row;
      worst.column = column;
      worst.got = got;
      worst.expected = expected;
      worst.error = error;
      worst.bound = bound;
    }
  }

  private String describe(Algorithm algorithm, long tokens, Worst worst) {
    long elements = tokens * epilogue.hiddenSize();
    return String.format(
        Locale.ROOT,
        "%s %s at %s (%d tokens x %d %s%s): rank %d %s[%d][%d] is %s, expected %s (error %.3g >"
            + " bound %.3g); %d of %d elements wrong",
        epilogue.pattern().wireName(),
        algorithm,
        HumanUnits.binaryBytes(elements * dtype.bytes()),
        tokens,
        epilogue.hiddenSize(),
        dtype,
        epilogue.fp32Accumulate() ? ", fp32 accumulation" : "",
        rank,
        worst.tensor,
        worst.row,
        worst.column,
        number(worst.got),
        number(worst.expected),
        worst.error,
        worst.bound,
        worst.wrong,
        2 * elements);
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "NaN (never written)" : String.format(Locale.ROOT, "%.8g", value);
  }
}
