package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReductionToleranceTest {
  private static final int TERMS = 8;
  private static final int SAMPLES = 20_000;

  @ParameterizedTest
  @EnumSource(DType.class)
  void acceptsSumsAccumulatedInFp32InAnyOrder(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    ReductionTolerance tolerance = ReductionTolerance.forSum(dtype, TERMS);
    SplittableRandom random = new SplittableRandom(5);
    float[] terms = new float[TERMS];
    for (int sample = 0; sample < SAMPLES; sample++) {
      double exact = 0;
      double magnitudes = 0;
      for (int i = 0; i < TERMS; i++) {
        terms[i] = codec.nextValue(random);
        exact += terms[i];
        magnitudes += Math.abs(terms[i]);
      }
      float forward = 0;
      float backward = 0;
      for (int i = 0; i < TERMS; i++) {
        forward += terms[i];
        backward += terms[TERMS - 1 - i];
      }
      assertThat(tolerance.accepts(exact, magnitudes, codec.round(forward))).isTrue();
      assertThat(tolerance.accepts(exact, magnitudes, codec.round(backward))).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = DType.class,
      names = {"BF16", "FP16"})
  void rejectsSumsWhosePartialsWereRoundedToTheSixteenBitType(DType dtype) {
    ElementCodec codec = ElementCodec.of(dtype);
    ReductionTolerance tolerance = ReductionTolerance.forSum(dtype, TERMS);
    SplittableRandom random = new SplittableRandom(6);
    int rejected = 0;
    for (int sample = 0; sample < SAMPLES; sample++) {
      double exact = 0;
      double magnitudes = 0;
      float partial = 0;
      for (int i = 0; i < TERMS; i++) {
        float term = codec.nextValue(random);
        exact += term;
        magnitudes += Math.abs(term);
        partial = codec.round(partial + term); // what a ring sending bf16 partials would do
      }
      rejected += tolerance.accepts(exact, magnitudes, partial) ? 0 : 1;
    }
    assertThat(rejected).isGreaterThan(SAMPLES / 100);
  }

  @ParameterizedTest
  @EnumSource(DType.class)
  void rejectsNaNAndAnErrorOfOneUnitInTheLastPlace(DType dtype) {
    ReductionTolerance tolerance = ReductionTolerance.forSum(dtype, 1);
    assertThat(tolerance.accepts(0.5, 0.5, Double.NaN)).isFalse();
    double ulpAtHalf = 2 * ElementCodec.of(dtype).unitRoundoff() * 0.5;
    assertThat(tolerance.accepts(0.5, 0.5, 0.5)).isTrue();
    assertThat(tolerance.accepts(0.5, 0.5, 0.5 + ulpAtHalf)).isFalse();
  }
}
