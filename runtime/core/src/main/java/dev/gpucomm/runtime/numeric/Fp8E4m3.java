package dev.gpucomm.runtime.numeric;

/**
 * Conversions between fp32 and FP8 e4m3 (the "fn" variant: 4 exponent bits of bias 7, 3 mantissa
 * bits, no infinities, largest finite value 448), rounding to nearest even and saturating to ±448
 * as CUDA's {@code __nv_cvt_float_to_fp8(..., __NV_SATFINITE, __NV_E4M3)} does.
 */
public final class Fp8E4m3 {
  /** The largest finite value. */
  public static final float MAX = 448f;

  /** Half the spacing of values relative to their leading bit: three mantissa bits. */
  public static final double UNIT_ROUNDOFF = 0x1p-4;

  /** Half the smallest subnormal (2⁻⁹): the absolute error of rounding tiny values. */
  public static final double UNDERFLOW_ERROR = 0x1p-10;

  private static final int NAN = 0x7f;
  private static final int MAX_CODE = 0x7e;

  private Fp8E4m3() {}

  /** The e4m3 byte nearest to {@code value}; values beyond ±448 saturate, NaN stays NaN. */
  public static byte fromFloat(float value) {
    int sign = (Float.floatToRawIntBits(value) >>> 24) & 0x80;
    if (Float.isNaN(value)) {
      return (byte) (sign | NAN);
    }
    float magnitude = Math.abs(value);
    if (magnitude >= MAX) {
      return (byte) (sign | MAX_CODE);
    }
    int code;
    if (magnitude < 0x1p-6f) {
      // Subnormals are multiples of 2^-9; a carry to 8 is the smallest normal, code 0x08.
      code = (int) Math.rint(magnitude * 0x1p9);
    } else {
      int exponent = Math.getExponent(magnitude);
      double mantissa = Math.scalb((double) magnitude, -exponent) - 1.0;
      int fraction = (int) Math.rint(mantissa * 8);
      if (fraction == 8) {
        exponent++;
        fraction = 0;
      }
      code = Math.min(MAX_CODE, ((exponent + 7) << 3) | fraction);
    }
    return (byte) (sign | code);
  }

  /** The exact value of an e4m3 byte. */
  public static float toFloat(byte bits) {
    int exponentField = (bits >>> 3) & 0xf;
    int fraction = bits & 0x7;
    float magnitude;
    if (exponentField == 0) {
      magnitude = fraction * 0x1p-9f;
    } else if (exponentField == 0xf && fraction == 0x7) {
      magnitude = Float.NaN;
    } else {
      magnitude = Math.scalb(1f + fraction / 8f, exponentField - 7);
    }
    return (bits & 0x80) != 0 ? -magnitude : magnitude;
  }

  /** {@code value} rounded (and saturated) to e4m3, as an fp32. */
  public static float round(float value) {
    return toFloat(fromFloat(value));
  }
}
