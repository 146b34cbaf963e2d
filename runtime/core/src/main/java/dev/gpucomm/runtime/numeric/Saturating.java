package dev.gpucomm.runtime.numeric;

/**
 * Byte counts that stop at {@link Long#MAX_VALUE} instead of wrapping: a size computed from user
 * input (a shape, a world size) must never wrap around into one that looks as if it fits. Arguments
 * are non-negative.
 */
public final class Saturating {
  private Saturating() {}

  public static long product(long a, long b) {
    return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
  }

  public static long sum(long... values) {
    long sum = 0;
    for (long value : values) {
      sum = sum > Long.MAX_VALUE - value ? Long.MAX_VALUE : sum + value;
    }
    return sum;
  }
}
