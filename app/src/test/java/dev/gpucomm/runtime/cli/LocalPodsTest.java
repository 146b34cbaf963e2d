package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LocalPodsTest {
  @ParameterizedTest(name = "world {0}: pods of {1}")
  @CsvSource({"1, 1", "4, 4", "16, 16", "20, 10", "48, 16", "60, 15", "17, 1", "64, 16"})
  void everyRankSharesOnePodUpToSixteenThenAsFewPodsAsDivideTheWorld(int world, int perPod) {
    assertThat(LocalPods.ranksPerPod(world)).isEqualTo(perPod);
    assertThat(world % perPod).as("spec.worldSize is a multiple of spec.ranksPerPod").isZero();
  }
}
