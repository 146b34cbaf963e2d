package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;

/**
 * The worst-case error of a result computed in fp32 from exactly represented inputs and rounded
 * once to its {@link DType}, as a validator compares it with an exact (float64) reference.
 *
 * <p>A sum of n terms accumulated in fp32 in any order errs by at most γ(n−1)·Σ|xᵢ|, where γ(k) =
 * k·u₃₂ / (1 − k·u₃₂) and u₃₂ = 2⁻²⁴ (a dot product of length n by γ(n)·Σ|aᵢbᵢ|, its products
 * rounding too); rounding to the dtype then adds u·|result|, or half the smallest value of the type
 * where the result underflows. An implementation that rounds partial sums to a 16-bit type between
 * ranks exceeds this bound, which is why validators should use it rather than a loose constant.
 *
 * @param dtype the type the result is stored in
 * @param fp32RoundingSteps how many fp32 operations may round on the way to one result
 */
public record ReductionTolerance(DType dtype, int fp32RoundingSteps) {
  private static final double FP32_UNIT_ROUNDOFF = 0x1p-24;

  public ReductionTolerance {
    if (fp32RoundingSteps < 0) {
      throw new IllegalArgumentException(
          "fp32RoundingSteps must be >= 0, got " + fp32RoundingSteps);
    }
  }

  /** The tolerance of a sum of {@code terms} values, e.g. an all-reduce over that many ranks. */
  public static ReductionTolerance forSum(DType dtype, int terms) {
    return new ReductionTolerance(dtype, Math.max(0, terms - 1));
  }

  /** The tolerance of a dot product of {@code length} pairs, e.g. one element of a matmul. */
  public static ReductionTolerance forDotProduct(DType dtype, int length) {
    return new ReductionTolerance(dtype, length);
  }

  /**
   * The largest admissible |actual − exact|.
   *
   * @param exact the exact result (computed in float64 from the same inputs)
   * @param sumOfMagnitudes Σ|xᵢ| over the terms (Σ|aᵢbᵢ| for a dot product)
   */
  public double bound(double exact, double sumOfMagnitudes) {
    double steps = fp32RoundingSteps * FP32_UNIT_ROUNDOFF;
    double accumulationError = steps / (1 - steps) * sumOfMagnitudes;
    ElementCodec codec = ElementCodec.of(dtype);
    return codec.unitRoundoff() * (Math.abs(exact) + accumulationError)
        + accumulationError
        + codec.underflowError();
  }

  /** True when {@code actual} is within {@link #bound} of {@code exact}; false for NaN. */
  public boolean accepts(double exact, double sumOfMagnitudes, double actual) {
    return Math.abs(actual - exact) <= bound(exact, sumOfMagnitudes);
  }
}
