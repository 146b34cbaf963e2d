package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** FP8 e4m3 conversions against the format's definition, value by value. */
class Fp8E4m3Test {

  @Test
  void everyFiniteCodeDecodesAndEncodesBackToItself() {
    for (int code = 0; code < 256; code++) {
      byte bits = (byte) code;
      float value = Fp8E4m3.toFloat(bits);
      if (Float.isNaN(value)) {
        assertThat(code & 0x7f).as("NaN code").isEqualTo(0x7f);
        continue;
      }
      if (value == 0f) {
        continue; // +0 and -0 both round-trip through their sign
      }
      assertThat(Fp8E4m3.fromFloat(value)).as("code 0x%02x (%s)", code, value).isEqualTo(bits);
    }
  }

  @Test
  void knownValuesOfTheFormat() {
    assertThat(Fp8E4m3.toFloat((byte) 0x7e)).isEqualTo(448f);
    assertThat(Fp8E4m3.toFloat((byte) 0x38)).isEqualTo(1f);
    assertThat(Fp8E4m3.toFloat((byte) 0x01)).isEqualTo(0x1p-9f);
    assertThat(Fp8E4m3.toFloat((byte) 0x08)).isEqualTo(0x1p-6f);
    assertThat(Fp8E4m3.toFloat((byte) 0xb8)).isEqualTo(-1f);
  }

  @Test
  void roundsToNearestEvenAndSaturatesAtTheLargestFiniteValue() {
    // 1.0625 lies halfway between 1 and 1.125: ties go to the even mantissa, 1.
    assertThat(Fp8E4m3.round(1.0625f)).isEqualTo(1f);
    assertThat(Fp8E4m3.round(1.1875f)).isEqualTo(1.25f);
    assertThat(Fp8E4m3.round(1000f)).isEqualTo(448f);
    assertThat(Fp8E4m3.round(-1e9f)).isEqualTo(-448f);
    assertThat(Fp8E4m3.round(0x1p-11f)).isEqualTo(0f);
    assertThat(Fp8E4m3.round(0x1.8p-9f)).isEqualTo(0x1p-8f);
  }

  @Test
  void roundingErrorStaysWithinTheStatedUnitRoundoff() {
    for (float value = 0.001f; value < 448f; value *= 1.0137f) {
      double error = Math.abs(Fp8E4m3.round(value) - value);
      assertThat(error)
          .as("error of %s", value)
          .isLessThanOrEqualTo(Fp8E4m3.UNIT_ROUNDOFF * value + Fp8E4m3.UNDERFLOW_ERROR);
    }
  }
}
