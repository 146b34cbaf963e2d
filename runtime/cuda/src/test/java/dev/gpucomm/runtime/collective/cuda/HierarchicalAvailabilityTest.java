package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.RankTopology;
import org.junit.jupiter.api.Test;

/** Where CUDA hierarchical all-reduce is offered: wherever its in-pod steps can use peer memory. */
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
  void severalRanksPerPodRunTheirInPodStepsOverPeerMemory() {
    RankTopology twoPodsOfTwo = new RankTopology(3, 4, 1, 2);

    assertThat(
            CudaCommunicatorParts.podPeerMemoryRefusal(
                twoPodsOfTwo, CudaCommunicatorSettings.defaults()))
        .isEmpty();
  }

  @Test
  void podsLargerThanPeerMemoryReachAreRefusedNamingTheLimit() {
    int tooMany = PeerMemoryLayout.MAX_RANKS + 1;
    RankTopology onePodTooLarge = new RankTopology(0, 2 * tooMany, 0, tooMany);

    assertThat(
            CudaCommunicatorParts.podPeerMemoryRefusal(
                onePodTooLarge, CudaCommunicatorSettings.defaults()))
        .contains("at most " + PeerMemoryLayout.MAX_RANKS + " ranks per node");
  }
}
