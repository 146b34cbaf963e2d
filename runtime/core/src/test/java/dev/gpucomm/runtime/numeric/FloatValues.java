package dev.gpucomm.runtime.numeric;

/** Comparisons of fp32 results that the bf16 block tests share. */
final class FloatValues {
  private FloatValues() {}

  /** Equal bits, except that the payload of a NaN sum is the hardware's business. */
  static boolean sameValue(float actual, float expected) {
    boolean bothNaN = Float.isNaN(actual) && Float.isNaN(expected);
    return bothNaN || Float.floatToRawIntBits(actual) == Float.floatToRawIntBits(expected);
  }
}
