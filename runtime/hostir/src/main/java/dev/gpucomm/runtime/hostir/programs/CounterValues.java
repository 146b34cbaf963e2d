package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;

/**
 * Pseudo-random test values addressed by (tensor tag, element index) instead of drawn in sequence:
 * any rank can compute any element of any rank's input, so a validator recomputes the exact result
 * of any output element without the other ranks' data.
 *
 * <p>Values are uniform multiples of 2^-(p−1) in [-1, 1), p being the type's significand bits (8
 * for bf16, 11 for fp16, 24 for fp32), so every value is exact in its type and products and sums of
 * them are exact in float64.
 */
public record CounterValues(long seed, DType dtype) {

  /** The values of a program's run: every program draws its own. */
  static CounterValues of(ProgramSettings settings) {
    return new CounterValues(settings.name().ordinal(), settings.dtype());
  }

  public float at(long tag, long index) {
    long hash = mix(seed ^ mix(tag * 0x9E3779B97F4A7C15L ^ mix(index)));
    int bits = significandBits(dtype);
    long draw = hash >>> (64 - bits);
    return (float) Math.scalb((double) (draw - (1L << (bits - 1))), -(bits - 1));
  }

  /**
   * Element (row, column) of L·R, where L[·, inner] holds the values of {@code leftTag} and
   * R[inner, columns] those of {@code rightTag}, both row-major.
   */
  ExactValue productElement(
      long leftTag, long rightTag, long row, long column, long inner, long columns) {
    double sum = 0;
    double magnitudes = 0;
    for (long i = 0; i < inner; i++) {
      double term = (double) at(leftTag, row * inner + i) * at(rightTag, i * columns + column);
      sum += term;
      magnitudes += Math.abs(term);
    }
    return new ExactValue(sum, magnitudes);
  }

  private static int significandBits(DType dtype) {
    return switch (dtype) {
      case BF16 -> 8;
      case FP16 -> 11;
      case FP32 -> 24;
    };
  }

  /** SplitMix64's finalizer: a bijection that spreads every input bit over the output. */
  private static long mix(long value) {
    long z = value + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
