package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.RankTopology;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The ranks of a pod find each other's gather areas in the job's one store, so the same local rank
 * of two pods must publish under different keys, and the ranks of one pod must look up the same.
 */
class HierarchicalGatherHandleKeyTest {
  private static final String PREFIX = "job/pod";

  @Test
  void theSameLocalRankOfTwoPodsPublishesUnderDifferentKeys() {
    RankTopology firstPodLocalZero = new RankTopology(0, 4, 0, 2);
    RankTopology secondPodLocalZero = new RankTopology(2, 4, 0, 2);

    assertThat(HierarchicalAllReduce.gatherHandleKey(PREFIX, firstPodLocalZero, 0))
        .isNotEqualTo(HierarchicalAllReduce.gatherHandleKey(PREFIX, secondPodLocalZero, 0));
  }

  @Test
  void aRankLooksUpItsPodPeerUnderTheKeyThePeerPublished() {
    RankTopology secondPodLocalZero = new RankTopology(2, 4, 0, 2);
    RankTopology secondPodLocalOne = new RankTopology(3, 4, 1, 2);

    String published = HierarchicalAllReduce.gatherHandleKey(PREFIX, secondPodLocalOne, 1);
    String lookedUp = HierarchicalAllReduce.gatherHandleKey(PREFIX, secondPodLocalZero, 1);

    assertThat(lookedUp).isEqualTo(published);
  }

  @Test
  void noKeyOfOnePodIsAKeyOfAnother() {
    int pods = 3;
    int ranksPerPod = 4;
    Set<String> keys = new HashSet<>();
    for (int rank = 0; rank < pods * ranksPerPod; rank++) {
      RankTopology topology =
          new RankTopology(rank, pods * ranksPerPod, rank % ranksPerPod, ranksPerPod);
      keys.add(HierarchicalAllReduce.gatherHandleKey(PREFIX, topology, topology.localRank()));
    }

    assertThat(keys).hasSize(pods * ranksPerPod);
  }
}
