package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static dev.gpucomm.runtime.heuristic.Queries.withAvailable;
import static dev.gpucomm.runtime.heuristic.Queries.withPodLink;
import static dev.gpucomm.runtime.heuristic.Queries.withRanksPerNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Across pods, the rule weighs how the pods reach each other before choosing hierarchical. */
class AcrossPodsTest {
  private static final long MIB = 1L << 20;
  private static final Set<Algorithm> CUDA_ACROSS_PODS =
      EnumSet.of(Algorithm.NCCL, Algorithm.HIERARCHICAL);
  private static final String SPANS =
      "spans 2 pods of 2 ranks (world 4): FlashInfer's one-shot/two-shot rule is single-node;"
          + " using ";

  private final TrtllmHeuristic trtllm = new TrtllmHeuristic();

  /** An all-reduce of {@code bytes} per rank by a job of 2 pods × 2 GPUs, pods linked by link. */
  private static SizeQuery twoPodsOfTwo(long bytes, PodLink link) {
    return withPodLink(withAvailable(withRanksPerNode(bytes(bytes, 4), 2), CUDA_ACROSS_PODS), link);
  }

  @Test
  void podsOnOneHostThatNcclLinksOverNvlinkRunFlatNcclAtEverySize() {
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");

    Decision oneMib = trtllm.choose(twoPodsOfTwo(MIB, nvlink));
    Decision oneGib = trtllm.choose(twoPodsOfTwo(1024 * MIB, nvlink));

    assertThat(oneMib.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(oneMib.reason())
        .isEqualTo(
            SPANS
                + "nccl (pods reach each other over intra-node p2p (NVL): flat nccl sees every"
                + " GPU, hierarchical only adds steps)");
    assertThat(oneGib.algorithm()).isEqualTo(Algorithm.NCCL);
  }

  @Test
  void podsSharingMemoryThroughTheHostAreAPeerLinkToo() {
    Decision decision = trtllm.choose(twoPodsOfTwo(64 * MIB, PodLink.peer("intra-node shm")));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason()).contains("pods reach each other over intra-node shm: flat nccl");
  }

  @Test
  void podsLinkedBySocketsTakeHierarchicalForLargeMessagesAndSayOverWhat() {
    PodLink sockets = PodLink.network("inter-node socket via eth0");

    Decision large = trtllm.choose(twoPodsOfTwo(64 * MIB, sockets));
    Decision tiny = trtllm.choose(twoPodsOfTwo(1024, sockets));

    assertThat(large.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(large.reason())
        .isEqualTo(
            SPANS
                + "hierarchical (67108864 B per rank ≥ 4096 B, 2 ranks per pod; pods reach each"
                + " other over inter-node socket via eth0)");
    assertThat(tiny.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(tiny.reason()).isEqualTo(SPANS + "nccl (1024 B per rank < 4096 B)");
  }

  @Test
  void anUnobservedLinkKeepsHierarchicalAndTheReasonSaysWhyItIsUnknown() {
    PodLink unknown =
        PodLink.unknown(
            "rank 2: NCCL's transports not recorded: NCCL_DEBUG is set in the"
                + " environment, so NCCL's log is the user's");

    Decision decision = trtllm.choose(twoPodsOfTwo(64 * MIB, unknown));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(decision.reason())
        .isEqualTo(
            SPANS
                + "hierarchical (67108864 B per rank ≥ 4096 B, 2 ranks per pod; how pods reach"
                + " each other is unknown: rank 2: NCCL's transports not recorded: NCCL_DEBUG is"
                + " set in the environment, so NCCL's log is the user's)");
  }

  @Test
  void aQueryBuiltWithoutALinkIsTreatedAsUnobserved() {
    SizeQuery query = withAvailable(withRanksPerNode(bytes(64 * MIB, 4), 2), CUDA_ACROSS_PODS);

    Decision decision = trtllm.choose(query);

    assertThat(query.podLink()).isEqualTo(PodLink.NOT_OBSERVED);
    assertThat(decision.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(decision.reason())
        .endsWith("how pods reach each other is unknown: the communicator did not say)");
  }

  @Test
  void vllmsRuleAcrossPodsWeighsTheLinkTheSameWay() {
    Decision decision =
        new VllmHeuristic().choose(twoPodsOfTwo(64 * MIB, PodLink.peer("intra-node p2p (NVL)")));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason())
        .startsWith("spans 2 pods of 2 ranks (world 4): vLLM's")
        .endsWith(
            "using nccl (pods reach each other over intra-node p2p (NVL): flat nccl sees"
                + " every GPU, hierarchical only adds steps)");
  }
}
