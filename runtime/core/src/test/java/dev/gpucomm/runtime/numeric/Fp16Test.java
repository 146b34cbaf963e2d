package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Fp16Test {
  private static final SplittableRandom RANDOM = new SplittableRandom(0xf16);

  @Test
  void everyHalfDecodesLikeTheJdk() {
    for (int bits = 0; bits < 0x1_0000; bits++) {
      float expected = Float.float16ToFloat((short) bits);
      float actual = Fp16.toFloat((short) bits);
      if (Float.isNaN(expected)) {
        assertThat(actual).isNaN();
      } else {
        assertThat(Float.floatToRawIntBits(actual))
            .as("half %04x", bits)
            .isEqualTo(Float.floatToRawIntBits(expected));
      }
    }
  }

  @Test
  void randomFloatsOfEveryExponentEncodeLikeTheJdkAndTheFloat64Reference() {
    for (int i = 0; i < 2_000_000; i++) {
      assertEncodesLikeReferences(Float.intBitsToFloat(RANDOM.nextInt()));
    }
  }

  @Test
  void floatsInTheHalfRangeIncludingSubnormalsEncodeLikeTheReferences() {
    // Bit patterns from 2^-26 to beyond the overflow threshold, with random low bits.
    for (int bits = 0x3280_0000; bits < 0x4790_0000; bits += 0x100) {
      float value = Float.intBitsToFloat(bits | RANDOM.nextInt(0x100));
      assertEncodesLikeReferences(value);
      assertEncodesLikeReferences(-value);
    }
  }

  @Test
  void exactMidpointsBetweenNeighboursRoundToEven() {
    for (int bits = 0; bits < 0x7bff; bits++) {
      double low = Fp16.toFloat((short) bits);
      double high = Fp16.toFloat((short) (bits + 1));
      float midpoint = (float) ((low + high) / 2); // exact: one more bit than binary16 has
      assertEncodesLikeReferences(midpoint);
      int expected = (bits & 1) == 0 ? bits : bits + 1;
      if ((Fp16.fromFloat(midpoint) & 0xffff) != expected) {
        fail("midpoint above %04x rounded to %04x", bits, Fp16.fromFloat(midpoint));
      }
    }
  }

  @Test
  void edgeValues() {
    assertThat(Fp16.round(65504f)).isEqualTo(65504f);
    assertThat(Fp16.round(65519.996f)).isEqualTo(65504f);
    assertThat(Fp16.round(65520f)).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(Fp16.round(-1e9f)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(Fp16.round(0x1p-24f)).isEqualTo(0x1p-24f); // smallest subnormal
    assertThat(Fp16.round(0x1p-25f)).isEqualTo(0f); // tie with zero, zero is even
    assertThat(Fp16.round(Math.nextUp(0x1p-25f))).isEqualTo(0x1p-24f);
    assertThat(Fp16.round(0x1p-14f - 0x1p-25f)).isEqualTo(0x1p-14f); // carries into the normals
    assertThat(Float.floatToRawIntBits(Fp16.round(-0f))).isEqualTo(0x8000_0000);
    assertThat(Fp16.round(Float.NaN)).isNaN();
    assertThat(Fp16.round(Float.intBitsToFloat(0x7f80_0001))).isNaN();
  }

  private static void assertEncodesLikeReferences(float value) {
    short actual = Fp16.fromFloat(value);
    if (Float.isNaN(value)) {
      if (!Float.isNaN(Fp16.toFloat(actual))) {
        fail("fp16(NaN %08x) lost its NaN: %04x", Float.floatToRawIntBits(value), actual);
      }
      return;
    }
    short jdk = Float.floatToFloat16(value);
    if (actual != jdk) {
      fail("fp16(%s) = %04x, the JDK says %04x", Float.toHexString(value), actual, jdk);
    }
    if (!Float.isInfinite(value)) {
      double reference = ReferenceRounding.FP16.round(value);
      if (Double.compare(Fp16.toFloat(actual), reference) != 0) {
        fail(
            "fp16(%s) = %s, the float64 reference says %s",
            Float.toHexString(value), Fp16.toFloat(actual), reference);
      }
    }
  }
}
