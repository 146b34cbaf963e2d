package dev.gpucomm.runtime.numeric;

/**
 * Conversions between fp32 and bfloat16 (the upper 16 bits of an fp32), rounding to nearest even.
 */
public final class Bf16 {
  private Bf16() {}

  /**
   * The bf16 bits nearest to {@code value}; ties go to the even bit pattern, NaN stays quiet NaN.
   */
  public static short fromFloat(float value) {
    int bits = Float.floatToRawIntBits(value);
    if ((bits & 0x7fff_ffff) > 0x7f80_0000) {
      // Truncating a NaN could clear every mantissa bit and turn it into infinity.
      return (short) ((bits >>> 16) | 0x0040);
    }
    int roundingBias = 0x7fff + ((bits >>> 16) & 1);
    return (short) ((bits + roundingBias) >>> 16);
  }

  /** The exact fp32 value of bf16 bits. */
  public static float toFloat(short bits) {
    return Float.intBitsToFloat((bits & 0xffff) << 16);
  }

  /** {@code value} rounded to the nearest bf16, as an fp32. */
  public static float round(float value) {
    return toFloat(fromFloat(value));
  }
}
