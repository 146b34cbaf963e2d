package dev.gpucomm.runtime.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers written as nccl-tests writes them with C's printf, so that tools that read its output
 * read ours digit for digit. C rounds the exact binary value half to even; Java's {@code %f} rounds
 * the shortest decimal half up, and its {@code %g} keeps trailing zeros, so both are done here with
 * {@link BigDecimal}.
 */
final class NcclTestsNumbers {
  private NcclTestsNumbers() {}

  /**
   * {@code value} right-aligned in {@code width} characters with as many decimals as fit, as
   * nccl-tests' {@code getFloatStr}: {@code %.2f}, else {@code %.1f}, else {@code %.0f}, else
   * {@code %.1e} (or {@code %.0e} below 7 characters).
   */
  static String column(double value, int width) {
    if (!Double.isFinite(value)) {
      return padded(special(value), width);
    }
    for (int decimals = 2; decimals >= 0; decimals--) {
      String fixed = fixed(value, decimals);
      if (fixed.length() <= width) {
        return padded(fixed, width);
      }
    }
    return padded(scientific(value, width >= 7 ? 1 : 0), width);
  }

  /** {@code value} as C's {@code %g}: six significant digits, trailing zeros dropped. */
  static String general(double value) {
    if (!Double.isFinite(value)) {
      return special(value);
    }
    if (value == 0) {
      return (1 / value < 0) ? "-0" : "0";
    }
    BigDecimal rounded = new BigDecimal(value).round(new MathContext(6, RoundingMode.HALF_EVEN));
    int exponent = rounded.precision() - rounded.scale() - 1;
    if (exponent < -4 || exponent >= 6) {
      BigDecimal mantissa = rounded.movePointLeft(exponent).stripTrailingZeros();
      return mantissa.toPlainString() + exponentText(exponent);
    }
    return rounded.stripTrailingZeros().toPlainString();
  }

  /** {@code %.<decimals>f}. */
  private static String fixed(double value, int decimals) {
    return new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
  }

  /** {@code %.<decimals>e}: one digit before the point, an exponent of at least two digits. */
  private static String scientific(double value, int decimals) {
    if (value == 0) {
      return fixed(0, decimals) + "e+00";
    }
    BigDecimal rounded =
        new BigDecimal(value).round(new MathContext(decimals + 1, RoundingMode.HALF_EVEN));
    int exponent = rounded.precision() - rounded.scale() - 1;
    BigDecimal mantissa =
        rounded.movePointLeft(exponent).setScale(decimals, RoundingMode.UNNECESSARY);
    return mantissa.toPlainString() + exponentText(exponent);
  }

  private static String exponentText(int exponent) {
    String digits = Integer.toString(Math.abs(exponent));
    return (exponent < 0 ? "e-" : "e+") + (digits.length() < 2 ? "0" + digits : digits);
  }

  private static String special(double value) {
    return Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  }

  private static String padded(String text, int width) {
    return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
  }
}
