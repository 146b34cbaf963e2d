package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.CPU_ALGORITHMS;
import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static dev.gpucomm.runtime.heuristic.Queries.withAvailable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import org.junit.jupiter.api.Test;

class FixedHeuristicTest {
  @Test
  void alwaysTheNamedAlgorithm() {
    FixedHeuristic twoshot = new FixedHeuristic(Algorithm.TWOSHOT);

    assertThat(twoshot.choose(bytes(16, 2)))
        .isEqualTo(new Decision(Algorithm.TWOSHOT, "fixed → twoshot"));
    assertThat(twoshot.choose(bytes(1L << 30, 8)).algorithm()).isEqualTo(Algorithm.TWOSHOT);
  }

  @Test
  void fixedNcclOnTheCpuBackendRunsTheRingAndSaysSo() {
    Decision decision =
        new FixedHeuristic(Algorithm.NCCL).choose(withAvailable(bytes(1024, 4), CPU_ALGORITHMS));

    assertThat(decision)
        .isEqualTo(new Decision(Algorithm.RING, "fixed → nccl; nccl is not available here → ring"));
  }

  @Test
  void autoIsNotAFixedAlgorithm() {
    assertThatThrownBy(() -> new FixedHeuristic(Algorithm.AUTO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("heuristic.fixedAlgorithm: auto is not a fixed algorithm");
  }
}
