package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Bf16Test {
  private static final SplittableRandom RANDOM = new SplittableRandom(0xb16);

  @Test
  void everyBf16ValueSurvivesARoundTripThroughFp32() {
    for (int bits = 0; bits < 0x1_0000; bits++) {
      float value = Bf16.toFloat((short) bits);
      if (Float.isNaN(value)) {
        assertThat(Float.isNaN(Bf16.toFloat(Bf16.fromFloat(value)))).isTrue();
      } else {
        if ((Bf16.fromFloat(value) & 0xffff) != bits) {
          fail("bf16 %04x came back as %04x", bits, Bf16.fromFloat(value));
        }
      }
    }
  }

  @Test
  void randomFloatsOfEveryExponentRoundLikeTheFloat64Reference() {
    for (int i = 0; i < 2_000_000; i++) {
      assertRoundsLikeReference(Float.intBitsToFloat(RANDOM.nextInt()));
    }
  }

  @Test
  void exactMidpointsRoundToTheEvenNeighbour() {
    for (int bits = 0; bits < 0x1_0000; bits++) {
      float midpoint = Float.intBitsToFloat((bits << 16) | 0x8000);
      if (!Float.isNaN(midpoint)) {
        assertRoundsLikeReference(midpoint);
        int expected = (bits & 1) == 0 ? bits : bits + 1;
        if ((Bf16.fromFloat(midpoint) & 0xffff) != (expected & 0xffff)) {
          fail("midpoint above %04x rounded to %04x", bits, Bf16.fromFloat(midpoint));
        }
      }
    }
  }

  @Test
  void edgeValues() {
    assertThat(Bf16.round(Float.MAX_VALUE)).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(Bf16.round(-Float.MAX_VALUE)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(Bf16.round(Float.MIN_VALUE)).isEqualTo(0f);
    assertThat(Float.floatToRawIntBits(Bf16.round(-0f))).isEqualTo(0x8000_0000);
    assertThat(Bf16.round(1f + 0x1p-8f)).isEqualTo(1f); // tie, 1.0 is even
    assertThat(Bf16.round(1f + 0x1p-8f + 0x1p-20f)).isEqualTo(1f + 0x1p-7f);
    // A NaN whose payload lives only in the low 16 bits must stay NaN, not become infinity.
    assertThat(Bf16.round(Float.intBitsToFloat(0x7f80_0001))).isNaN();
    assertThat(Bf16.round(Float.intBitsToFloat(0xff80_0001))).isNaN();
  }

  private static void assertRoundsLikeReference(float value) {
    float actual = Bf16.round(value);
    if (Float.isNaN(value)) {
      if (!Float.isNaN(actual)) {
        fail("bf16(NaN %08x) lost its NaN: %s", Float.floatToRawIntBits(value), actual);
      }
    } else if (Float.isInfinite(value)) {
      if (actual != value) {
        fail("bf16(%s) = %s", value, actual);
      }
    } else {
      // Double.compare tells -0.0 from 0.0, so the sign of rounded-away values is checked too.
      double reference = ReferenceRounding.BF16.round(value);
      if (Double.compare(actual, reference) != 0) {
        fail(
            "bf16(%s) = %s, the float64 reference says %s",
            Float.toHexString(value), actual, reference);
      }
    }
  }
}
