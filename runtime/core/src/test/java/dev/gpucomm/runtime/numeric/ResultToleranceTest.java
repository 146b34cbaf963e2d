package dev.gpucomm.runtime.numeric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hierarchical all-reduce on GPUs, simulated in its own order of roundings: each pod's ranks sum in
 * fp32 and round to the element type (the two-shot kernel), then NCCL sums the pods' rounded sums,
 * rounding after every hop of its ring. That is a correct result, and the validator must accept it;
 * a result that lost one rank must still be refused.
 */
class ResultToleranceTest {
  private static final int SAMPLES = 50_000;

  @ParameterizedTest(name = "{0}, {1} pods x {2} ranks")
  @CsvSource({
    "BF16, 2, 2",
    "BF16, 4, 2",
    "BF16, 2, 4",
    "BF16, 8, 1",
    "BF16, 2, 8",
    "BF16, 4, 8",
    "FP16, 2, 2",
    "FP16, 4, 2",
    "FP32, 2, 2"
  })
  void acceptsEverySumRoundedPerPodAndPerHopAcrossPods(DType dtype, int pods, int ranksPerPod) {
    ElementCodec codec = ElementCodec.of(dtype);
    int world = pods * ranksPerPod;
    ResultTolerance hierarchical =
        new ResultTolerance(Algorithm.HIERARCHICAL, dtype, world, ranksPerPod);
    SplittableRandom random = new SplittableRandom(21);
    float[][] inputs = new float[pods][ranksPerPod];
    for (int sample = 0; sample < SAMPLES; sample++) {
      Sums exact = fill(inputs, codec, random);
      float acrossPods = 0;
      for (int pod = 0; pod < pods; pod++) {
        float inPod = 0;
        for (float x : inputs[pod]) {
          inPod += x;
        }
        float podSum = ranksPerPod == 1 ? inPod : codec.round(inPod);
        acrossPods = pod == 0 ? podSum : codec.round(acrossPods + podSum);
      }
      assertThat(hierarchical.bound(exact.sum, exact.magnitudes))
          .as("sample %d: got %s, exact %s", sample, acrossPods, exact.sum)
          .isGreaterThanOrEqualTo(Math.abs(acrossPods - exact.sum));
    }
  }

  @ParameterizedTest(name = "{0}, {1} pods x {2} ranks")
  @CsvSource({"BF16, 2, 2", "BF16, 4, 2", "FP16, 2, 4", "BF16, 2, 8", "BF16, 4, 8"})
  void refusesASumThatLostOneRank(DType dtype, int pods, int ranksPerPod) {
    ElementCodec codec = ElementCodec.of(dtype);
    ResultTolerance hierarchical =
        new ResultTolerance(Algorithm.HIERARCHICAL, dtype, pods * ranksPerPod, ranksPerPod);
    SplittableRandom random = new SplittableRandom(22);
    float[][] inputs = new float[pods][ranksPerPod];
    int refused = 0;
    for (int sample = 0; sample < SAMPLES; sample++) {
      Sums exact = fill(inputs, codec, random);
      double withoutLastRank = exact.sum - inputs[pods - 1][ranksPerPod - 1];
      if (Math.abs(withoutLastRank - exact.sum) > hierarchical.bound(exact.sum, exact.magnitudes)) {
        refused++;
      }
    }
    // Only a lost term that happens to be small next to the others can hide in the allowance,
    // which grows with the pods, not the ranks: at 4 pods x 8 ranks an allowance of n - 1
    // roundings (31 u = 0.12 of the magnitudes) would hide every lost rank.
    assertThat(refused).isGreaterThan(SAMPLES * 2 / 3);
  }

  private record Sums(double sum, double magnitudes) {}

  private static Sums fill(float[][] inputs, ElementCodec codec, SplittableRandom random) {
    double sum = 0;
    double magnitudes = 0;
    for (float[] pod : inputs) {
      for (int i = 0; i < pod.length; i++) {
        pod[i] = codec.nextValue(random);
        sum += pod[i];
        magnitudes += Math.abs(pod[i]);
      }
    }
    return new Sums(sum, magnitudes);
  }
}
