package dev.gpucomm.runtime.report;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Formats sizes and times for people: binary units throughout (1 KB = 1024 B, as vLLM's and
 * nccl-tests' tables do), microseconds and milliseconds for latencies, and numbers without trailing
 * zeros.
 */
public final class HumanUnits {
  private static final long KIB = 1L << 10;
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  private HumanUnits() {}

  /** "1 rank", "8 ranks": a count and its noun, singular for one. */
  public static String count(long count, String noun) {
    return count + " " + (count == 1 ? noun : noun + "s");
  }

  /** A byte count in KiB/MiB/GiB with up to two decimals, e.g. {@code 47.84 MiB}, {@code 512 B}. */
  public static String binaryBytes(long bytes) {
    return scaled(bytes, "B", "KiB", "MiB", "GiB");
  }

  /** A byte count for axis ticks and table cells, e.g. {@code 512 KB}, {@code 64 MB}. */
  public static String shortBytes(long bytes) {
    return scaled(bytes, "B", "KB", "MB", "GB");
  }

  /** Mebibytes with two decimals, as the "Tensor Size" column of vLLM's tables: {@code 0.50 MB}. */
  public static String megabytesTwoDecimals(long bytes) {
    return fixed((double) bytes / MIB, 2) + " MB";
  }

  /** A latency given in microseconds, e.g. {@code 9.8 µs}, {@code 250 µs}, {@code 1.25 ms}. */
  public static String micros(double micros) {
    if (micros >= 1_000_000) {
      return trimmed(micros / 1_000_000, 2) + " s";
    }
    if (micros >= 1_000) {
      return trimmed(micros / 1_000, 2) + " ms";
    }
    return trimmed(micros, micros < 10 ? 2 : 1) + " µs";
  }

  /** {@code value} rounded to {@code decimals} places, trailing zeros dropped: 64, 42.25. */
  public static String trimmed(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return Double.toString(value);
    }
    BigDecimal rounded =
        BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros();
    return rounded.scale() < 0 ? rounded.setScale(0).toPlainString() : rounded.toPlainString();
  }

  /** {@code value} rounded to {@code decimals} places with at least one decimal: 32.0, 64.125. */
  public static String atLeastOneDecimal(double value, int decimals) {
    String text = trimmed(value, decimals);
    return text.contains(".") || !Double.isFinite(value) ? text : text + ".0";
  }

  /** {@code value} with exactly {@code decimals} places. */
  public static String fixed(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return Double.toString(value);
    }
    return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
  }

  private static String scaled(long bytes, String b, String k, String m, String g) {
    long magnitude = Math.abs(bytes);
    if (magnitude >= GIB) {
      return trimmed((double) bytes / GIB, 2) + " " + g;
    }
    if (magnitude >= MIB) {
      return trimmed((double) bytes / MIB, 2) + " " + m;
    }
    if (magnitude >= KIB) {
      return trimmed((double) bytes / KIB, 2) + " " + k;
    }
    return bytes + " " + b;
  }
}
