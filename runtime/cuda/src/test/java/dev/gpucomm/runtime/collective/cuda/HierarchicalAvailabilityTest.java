package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.RankTopology;
import org.junit.jupiter.api.Test;

/** Where CUDA hierarchical all-reduce is offered: only where its results have been validated. */
class HierarchicalAvailabilityTest {

  @Test
  void onePodRankPerNodeRunsTheValidatedPath() {
    RankTopology twoPodsOfOne = new RankTopology(1, 2, 0, 1);

    assertThat(
            CudaCommunicatorParts.podPeerMemoryRefusal(
                twoPodsOfOne, CudaCommunicatorSettings.defaults()))
        .isEmpty();
  }

  @Test
  void severalRanksPerPodAreRefusedUntilTheirResultsAreCorrect() {
    RankTopology twoPodsOfTwo = new RankTopology(3, 4, 1, 2);

    assertThat(
            CudaCommunicatorParts.podPeerMemoryRefusal(
                twoPodsOfTwo, CudaCommunicatorSettings.defaults()))
        .contains("more than one rank per pod")
        .contains("use nccl");
  }
}
