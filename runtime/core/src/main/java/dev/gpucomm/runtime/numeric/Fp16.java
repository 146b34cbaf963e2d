package dev.gpucomm.runtime.numeric;

/**
 * Conversions between fp32 and IEEE 754 binary16, rounding to nearest even, with subnormals,
 * infinities and NaN.
 */
public final class Fp16 {
  /** fp32 bits of 65520, the smallest magnitude that rounds to infinity in binary16. */
  private static final int OVERFLOW_THRESHOLD = 0x477f_f000;

  /** fp32 bits of 2^-14, the smallest normal binary16. */
  private static final int SMALLEST_NORMAL = 0x3880_0000;

  /** fp32 bits of 2^-25, half the smallest subnormal: it and anything smaller round to zero. */
  private static final int HALF_SMALLEST_SUBNORMAL = 0x3300_0000;

  /** Difference of the exponent biases (127 - 15), placed in the fp32 exponent field. */
  private static final int REBIAS = 112 << 23;

  private Fp16() {}

  /** The binary16 bits nearest to {@code value}; ties go to the even bit pattern. */
  public static short fromFloat(float value) {
    int bits = Float.floatToRawIntBits(value);
    int sign = (bits >>> 16) & 0x8000;
    int magnitude = bits & 0x7fff_ffff;
    if (magnitude >= 0x7f80_0000) {
      if (magnitude == 0x7f80_0000) {
        return (short) (sign | 0x7c00);
      }
      return (short) (sign | 0x7e00 | ((magnitude >>> 13) & 0x3ff));
    }
    if (magnitude >= OVERFLOW_THRESHOLD) {
      return (short) (sign | 0x7c00);
    }
    if (magnitude >= SMALLEST_NORMAL) {
      int rebiased = magnitude - REBIAS;
      int roundingBias = 0xfff + ((rebiased >>> 13) & 1);
      // A carry out of the mantissa correctly bumps the exponent (up to infinity).
      return (short) (sign | ((rebiased + roundingBias) >>> 13));
    }
    if (magnitude <= HALF_SMALLEST_SUBNORMAL) {
      return (short) sign;
    }
    // Subnormal: express the value in units of 2^-24 (the smallest subnormal) and round.
    int exponent = magnitude >>> 23;
    int significand = (magnitude & 0x7f_ffff) | 0x80_0000;
    int shift = 126 - exponent;
    int quotient = significand >>> shift;
    int remainder = significand & ((1 << shift) - 1);
    int halfway = 1 << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (quotient & 1) == 1)) {
      quotient++; // 1024 is the bit pattern of the smallest normal, as it should be
    }
    return (short) (sign | quotient);
  }

  /** The exact fp32 value of binary16 bits. */
  public static float toFloat(short bits) {
    int half = bits & 0xffff;
    int sign = (half & 0x8000) << 16;
    int exponent = (half >>> 10) & 0x1f;
    int mantissa = half & 0x3ff;
    if (exponent == 0) {
      float magnitude = mantissa * 0x1p-24f; // exact: at most 10 significant bits
      return Float.intBitsToFloat(sign | Float.floatToRawIntBits(magnitude));
    }
    if (exponent == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f80_0000 | (mantissa << 13));
    }
    return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }

  /** {@code value} rounded to the nearest binary16, as an fp32. */
  public static float round(float value) {
    return toFloat(fromFloat(value));
  }
}
