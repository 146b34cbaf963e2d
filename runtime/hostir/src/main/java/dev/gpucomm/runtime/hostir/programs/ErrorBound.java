package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;

/**
 * The worst-case error of one output element of a program, as a validator compares it with the
 * exact (float64) value: fp32 accumulation over {@code fp32Steps} operations errs by at most γ·Σ|t|
 * with γ = s·u₃₂ / (1 − s·u₃₂); each of {@code intermediateRoundings} roundings of a partial result
 * to the dtype (a rank's partial matmul, a hop of a ring all-reduce that stores bf16 between ranks)
 * adds u·Σ|t|; the final rounding adds u·|result|.
 */
public record ErrorBound(DType dtype, long fp32Steps, int intermediateRoundings) {
  private static final double FP32_UNIT_ROUNDOFF = 0x1p-24;

  /** The bound of results that are copies of exact inputs (no arithmetic): zero. */
  public static ErrorBound exact(DType dtype) {
    return new ErrorBound(dtype, 0, -1);
  }

  public boolean isExact() {
    return intermediateRoundings < 0;
  }

  public double bound(double exact, double magnitudeSum) {
    if (isExact()) {
      return 0;
    }
    ElementCodec codec = ElementCodec.of(dtype);
    double u = codec.unitRoundoff();
    double steps = fp32Steps * FP32_UNIT_ROUNDOFF;
    double gamma = steps / (1 - steps);
    return u * Math.abs(exact)
        + (gamma + intermediateRoundings * u) * (1 + u) * magnitudeSum
        + (intermediateRoundings + 1) * codec.underflowError();
  }
}
