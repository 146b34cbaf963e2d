package dev.gpucomm.runtime.numeric;

/**
 * Round-to-nearest-even into a binary format with {@code mantissaBits} stored mantissa bits,
 * computed in float64 from the IEEE 754 definition (unbounded-exponent rounding, then overflow to
 * infinity) rather than by bit manipulation, so it can check the bit-level converters.
 */
record ReferenceRounding(int mantissaBits, int minNormalExponent, int maxExponent) {
  static final ReferenceRounding BF16 = new ReferenceRounding(7, -126, 127);
  static final ReferenceRounding FP16 = new ReferenceRounding(10, -14, 15);

  double maxFinite() {
    return (2 - Math.scalb(1.0, -mantissaBits)) * Math.scalb(1.0, maxExponent);
  }

  /** The nearest value of the format to the finite {@code value}, or ±infinity on overflow. */
  double round(double value) {
    double magnitude = Math.abs(value);
    if (magnitude == 0) {
      return value;
    }
    int exponent = Math.max(Math.getExponent(magnitude), minNormalExponent);
    double ulp = Math.scalb(1.0, exponent - mantissaBits);
    double rounded = Math.rint(magnitude / ulp) * ulp; // rint rounds half to even
    if (rounded > maxFinite()) {
      rounded = Double.POSITIVE_INFINITY;
    }
    return Math.copySign(rounded, value);
  }
}
