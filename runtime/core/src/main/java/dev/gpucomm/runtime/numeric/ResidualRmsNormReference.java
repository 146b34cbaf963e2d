package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;

/**
 * The float64 reference of one token row of the fused pattern, residualOut = Σᵣ xᵣ + residual and
 * out = residualOut / sqrt(mean(residualOut²) + ε) · γ, with the largest admissible error of each
 * element of an implementation that works in fp32 and stores {@link DType} (or FP8 e4m3) values.
 *
 * <p>The bounds are first-order error analysis made safe for the second order, per element:
 *
 * <ul>
 *   <li>residualOut: with A = Σ|xᵣ| + |residual|, summing in fp32 errs by at most γ₃₂(n)·A (n − 1
 *       rank additions and the residual addition); summing in the element type instead (no fp32
 *       accumulation, or NCCL's ring, which rounds every hop) adds up to γ_T(n − 1)·A; an unfused
 *       sequence rounds the sum to the element type before the residual addition, u_T·A; and the
 *       stored value rounds once more, u_T·|residualOut|.
 *   <li>out: an error vector e in the row moves sqrt(mean(r²) + ε) by at most sqrt(mean(e²)) (the
 *       triangle inequality), the fp32 sum of squares of a row of h elements adds γ₃₂(h + 4)
 *       relative; so out errs by |γ|·eᵢ/rms + |out|·δ/(rms − δ), plus three fp32 products and the
 *       final rounding to the element type.
 *   <li>FP8 output, compared after dequantization (q · scale): the out bound plus e4m3's rounding,
 *       2⁻⁴ relative (three mantissa bits) or 2⁻¹⁰·scale for subnormals, against the reference
 *       saturated at ±448·scale as the conversion saturates.
 * </ul>
 *
 * A missing rank, a dropped residual or a wrong row's norm errs by the size of a whole term, orders
 * of magnitude above these bounds for the random inputs the benchmark draws.
 */
public final class ResidualRmsNormReference {
  private static final double FP32_UNIT_ROUNDOFF = 0x1p-24;

  private final DType dtype;
  private final int worldSize;
  private final double epsilon;
  private final boolean sumRoundedPerRank;
  private final double[] residualOut;
  private final double[] magnitudes;
  private final double[] residualBound;
  private final double[] gamma;
  private double rms;
  private double rmsError;

  /**
   * @param sumRoundedPerRank whether the implementation may round partial sums to the element type
   *     (fp32Accumulate off, or NCCL)
   */
  public ResidualRmsNormReference(
      DType dtype, int worldSize, int hiddenSize, double epsilon, boolean sumRoundedPerRank) {
    this.dtype = dtype;
    this.worldSize = worldSize;
    this.epsilon = epsilon;
    this.sumRoundedPerRank = sumRoundedPerRank;
    this.residualOut = new double[hiddenSize];
    this.magnitudes = new double[hiddenSize];
    this.residualBound = new double[hiddenSize];
    this.gamma = new double[hiddenSize];
  }

  /** Starts a row: the residual and γ of each element. */
  public void startRow(float[] residual, float[] rowGamma) {
    for (int i = 0; i < residualOut.length; i++) {
      residualOut[i] = residual[i];
      magnitudes[i] = Math.abs(residual[i]);
      gamma[i] = rowGamma[i];
    }
  }

  /** Adds one rank's input row. */
  public void addRank(float[] input) {
    for (int i = 0; i < residualOut.length; i++) {
      residualOut[i] += input[i];
      magnitudes[i] += Math.abs(input[i]);
    }
  }

  /** Ends a row: computes its norm and the error bounds once every rank was added. */
  public void finishRow() {
    ElementCodec codec = ElementCodec.of(dtype);
    double u = codec.unitRoundoff();
    double accumulation = gamma(worldSize, FP32_UNIT_ROUNDOFF) + u;
    if (sumRoundedPerRank) {
      accumulation += gamma(worldSize - 1, u);
    }
    double sumOfSquares = 0;
    double sumOfSquaredBounds = 0;
    for (int i = 0; i < residualOut.length; i++) {
      residualBound[i] =
          accumulation * magnitudes[i] + u * Math.abs(residualOut[i]) + 2 * codec.underflowError();
      sumOfSquares += residualOut[i] * residualOut[i];
      sumOfSquaredBounds += residualBound[i] * residualBound[i];
    }
    int hidden = residualOut.length;
    rms = Math.sqrt(sumOfSquares / hidden + epsilon);
    rmsError = Math.sqrt(sumOfSquaredBounds / hidden) + gamma(hidden + 4, FP32_UNIT_ROUNDOFF) * rms;
  }

  /** The exact updated residual of element {@code i}. */
  public double residualOut(int i) {
    return residualOut[i];
  }

  /** The largest admissible error of the stored residual of element {@code i}. */
  public double residualOutBound(int i) {
    return residualBound[i];
  }

  /** The exact normalized output of element {@code i}. */
  public double out(int i) {
    return residualOut[i] / rms * gamma[i];
  }

  /** The largest admissible error of the stored output of element {@code i}. */
  public double outBound(int i) {
    ElementCodec codec = ElementCodec.of(dtype);
    return unroundedOutBound(i) + codec.unitRoundoff() * Math.abs(out(i)) + codec.underflowError();
  }

  /** The exact output of element {@code i} after FP8 quantization by {@code scale}, dequantized. */
  public double fp8Out(int i, double scale) {
    double limit = Fp8E4m3.MAX * scale;
    return Math.max(-limit, Math.min(limit, out(i)));
  }

  /** The largest admissible error of the dequantized FP8 output of element {@code i}. */
  public double fp8OutBound(int i, double scale) {
    return unroundedOutBound(i)
        + Fp8E4m3.UNIT_ROUNDOFF * Math.abs(fp8Out(i, scale))
        + Fp8E4m3.UNDERFLOW_ERROR * scale
        + FP32_UNIT_ROUNDOFF * Math.abs(out(i));
  }

  private double unroundedOutBound(int i) {
    double exact = out(i);
    return Math.abs(gamma[i]) * residualBound[i] / rms
        + Math.abs(exact) * rmsError / (rms - rmsError)
        + 3 * FP32_UNIT_ROUNDOFF * Math.abs(exact);
  }

  /** γ(k) = k·u / (1 − k·u), the bound of k roundings of relative size u. */
  private static double gamma(int k, double u) {
    double steps = Math.max(0, k) * u;
    return steps / (1 - steps);
  }
}
