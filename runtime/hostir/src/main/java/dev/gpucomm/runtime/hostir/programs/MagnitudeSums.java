package dev.gpucomm.runtime.hostir.programs;

/**
 * Bounds of Σ|aᵢbᵢ| for dot products of the test data, used where exact values are not computed.
 *
 * <p>With a and b uniform in [-1, 1), |a||b| has mean 1/4 and standard deviation below 0.23, so a
 * sum of n terms stays below n/4 + 6 · 0.23 · √n except with a probability under 10⁻⁹ per element.
 */
final class MagnitudeSums {
  private MagnitudeSums() {}

  static double uniformDotProduct(long length) {
    return length / 4.0 + 6 * 0.23 * Math.sqrt(length);
  }
}
