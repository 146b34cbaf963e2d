package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.CPU_ALGORITHMS;
import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static dev.gpucomm.runtime.heuristic.Queries.tokens;
import static dev.gpucomm.runtime.heuristic.Queries.withAvailable;
import static dev.gpucomm.runtime.heuristic.Queries.withCollective;
import static dev.gpucomm.runtime.heuristic.Queries.withIpcWorkspace;
import static dev.gpucomm.runtime.heuristic.Queries.withRanksPerNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrtllmHeuristicTest {
  private final TrtllmHeuristic heuristic = new TrtllmHeuristic();

  @ParameterizedTest(
      name = "world {0}: {1} tokens × 8192 bf16 is commMB {2} → oneshot, one more → twoshot")
  @CsvSource({
    // FlashInfer's thresholds {2: 512, 4: 64, 8: 42}: the last token count at or under each.
    "2, 8192, 512.0, 512",
    "4, 512, 64.0, 64",
    "8, 168, 42.0, 42",
  })
  void oneshotUpToTheFlashInferThresholdThenTwoshot(
      int world, int lastOneshotTokens, String commMb, String threshold) {
    Decision atThreshold = heuristic.choose(tokens(lastOneshotTokens, 8192, DType.BF16, world));
    Decision oneMore = heuristic.choose(tokens(lastOneshotTokens + 1, 8192, DType.BF16, world));

    assertThat(atThreshold.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(atThreshold.reason())
        .contains("commMB " + commMb + " ≤ " + threshold + " for world " + world + " → oneshot");
    assertThat(oneMore.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(oneMore.reason()).contains(" > " + threshold + " for world " + world);
  }

  @Test
  void theExampleFromTheDesignNotesReadsAsItsInputs() {
    Decision decision = heuristic.choose(tokens(256, 8192, DType.BF16, 4));

    assertThat(decision)
        .isEqualTo(
            new Decision(
                Algorithm.ONESHOT,
                "tokens 256 × hidden 8192 × 2 × world 4 × 2 B / 2^20 = commMB 32.0 ≤ 64 for world 4"
                    + " → oneshot"));
  }

  @Test
  void dtypeBytesCountInCommMb() {
    // fp32 at hidden 4096 moves as many bytes per token as bf16 at 8192: same boundary.
    assertThat(heuristic.choose(tokens(512, 4096, DType.FP32, 4)).algorithm())
        .isEqualTo(Algorithm.ONESHOT);
    assertThat(heuristic.choose(tokens(513, 4096, DType.FP32, 4)).algorithm())
        .isEqualTo(Algorithm.TWOSHOT);
    assertThat(heuristic.choose(tokens(1024, 4096, DType.FP16, 4)).algorithm())
        .isEqualTo(Algorithm.ONESHOT);
  }

  @Test
  void withoutTokensCommMbComesFromTheBytesPerRank() {
    long eightMib = 8L << 20; // × 2 × world 4 = 64 MiB
    Decision atThreshold = heuristic.choose(bytes(eightMib, 4));
    Decision above = heuristic.choose(bytes(eightMib + 16, 4));

    assertThat(atThreshold.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(atThreshold.reason())
        .contains("bytes 8388608 × 2 × world 4 / 2^20 = commMB 64.0 ≤ 64");
    assertThat(above.algorithm()).isEqualTo(Algorithm.TWOSHOT);
  }

  @ParameterizedTest(name = "world {0} borrows {1}: {2} tokens → oneshot, {3} → twoshot")
  @CsvSource({
    // commMB per token at hidden 8192 bf16 is world × 0.03125.
    "3, 'next larger world 4', 682, 683",
    "6, 'next larger world 8', 224, 225",
    "16, 'largest listed world 8', 84, 85",
  })
  void unlistedWorldSizesUseTheNextLargerListedThreshold(
      int world, String origin, int lastOneshot, int firstTwoshot) {
    Decision oneshot = heuristic.choose(tokens(lastOneshot, 8192, DType.BF16, world));
    Decision twoshot = heuristic.choose(tokens(firstTwoshot, 8192, DType.BF16, world));

    assertThat(oneshot.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(twoshot.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(oneshot.reason()).contains("world " + world + " is not in the table", origin);
    assertThat(heuristic.thresholdMb(3)).isEqualTo(64.0);
    assertThat(heuristic.thresholdMb(6)).isEqualTo(42.0);
    assertThat(heuristic.thresholdMb(16)).isEqualTo(42.0);
  }

  @Test
  void aSingleRankHasNothingToExchange() {
    assertThat(heuristic.choose(tokens(100_000, 8192, DType.BF16, 1)).algorithm())
        .isEqualTo(Algorithm.ONESHOT);
  }

  @Test
  void twoshotNeedsMoreTokensThanRanks() {
    // 8 tokens of 1M bf16 at world 8: commMB 256 > 42, but two-shot cannot split 8 tokens 8 ways.
    Decision eightTokens = heuristic.choose(tokens(8, 1 << 20, DType.BF16, 8));
    Decision nineTokens = heuristic.choose(tokens(9, 1 << 20, DType.BF16, 8));

    assertThat(eightTokens.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(eightTokens.reason()).contains("two-shot needs tokens > world (tokens 8, world 8)");
    assertThat(nineTokens.algorithm()).isEqualTo(Algorithm.TWOSHOT);
  }

  @Test
  void oneshotIsRefusedAboveTheInt32CapRoundedDownTo2MiB() {
    assertThat(TrtllmHeuristic.ONESHOT_MAX_COMM_BYTES).isEqualTo(2_145_386_496L);
    // A threshold so large that only the cap stops one-shot; per token, 8192 × 2 B × world 4.
    TrtllmHeuristic generous = new TrtllmHeuristic(Map.of(4, 1e9));
    long lastTokens = TrtllmHeuristic.ONESHOT_MAX_COMM_BYTES / (8192 * 2 * 4);

    Decision atCap = generous.choose(tokens((int) lastTokens, 8192, DType.BF16, 4));
    Decision overCap = generous.choose(tokens((int) lastTokens + 1, 8192, DType.BF16, 4));

    assertThat(lastTokens).isEqualTo(32_736);
    assertThat(atCap.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(overCap.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(overCap.reason()).contains("exceeds the int32 cap 2145386496 B");
  }

  @Test
  void capAndTooFewTokensTogetherLeaveNccl() {
    TrtllmHeuristic generous = new TrtllmHeuristic(Map.of(4, 1e9));
    // 4 tokens × 2^27 fp32 elements × world 4 = 8 GiB > cap, and 4 tokens do not split 4 ways.
    Decision decision = generous.choose(tokens(4, 1 << 27, DType.FP32, 4));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason()).contains("int32 cap", "two-shot needs tokens > world");
  }

  @Test
  void jobsSpanningPodsWithoutHierarchicalUseNcclAndSayTheRuleIsSingleNode() {
    Decision decision = heuristic.choose(withRanksPerNode(tokens(32, 8192, DType.BF16, 8), 4));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason())
        .isEqualTo(
            "spans 2 pods of 4 ranks (world 8): FlashInfer's one-shot/two-shot rule is"
                + " single-node; using nccl (hierarchical is not available here)");
  }

  @Test
  void jobsSpanningPodsTakeHierarchicalForLargeMessagesAndTheRingForTinyOnesOnTheCpu() {
    Set<Algorithm> cpuAcrossPods = EnumSet.of(Algorithm.RING, Algorithm.HIERARCHICAL);
    SizeQuery large =
        withAvailable(withRanksPerNode(tokens(32, 8192, DType.BF16, 8), 4), cpuAcrossPods);
    SizeQuery tiny =
        withAvailable(withRanksPerNode(tokens(1, 64, DType.BF16, 8), 4), cpuAcrossPods);
    SizeQuery onePerPod =
        withAvailable(withRanksPerNode(tokens(32, 8192, DType.BF16, 8), 1), cpuAcrossPods);

    assertThat(heuristic.choose(large).algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(heuristic.choose(large).reason())
        .startsWith("spans 2 pods of 4 ranks (world 8): FlashInfer's")
        .contains("using hierarchical (524288 B per rank ≥ 4096 B, 4 ranks per pod;");
    assertThat(heuristic.choose(tiny).algorithm()).isEqualTo(Algorithm.RING);
    assertThat(heuristic.choose(tiny).reason())
        .contains("using nccl (128 B per rank < 4096 B); nccl is not available here → ring");
    assertThat(heuristic.choose(onePerPod).algorithm()).isEqualTo(Algorithm.RING);
    assertThat(heuristic.choose(onePerPod).reason()).contains("one rank per pod");
  }

  @Test
  void withoutIpcAlgorithmsItSaysWhyItChoseNccl() {
    Decision decision =
        heuristic.choose(
            withAvailable(tokens(32, 8192, DType.BF16, 4), EnumSet.of(Algorithm.NCCL)));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason()).contains("IPC algorithms (oneshot, twoshot) are not available");
  }

  @Test
  void onTheCpuBackendNcclBecomesRing() {
    Decision decision =
        heuristic.choose(
            withAvailable(withRanksPerNode(tokens(32, 8192, DType.BF16, 4), 2), CPU_ALGORITHMS));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.RING);
    assertThat(decision.reason()).endsWith("nccl is not available here → ring");
  }

  @Test
  void anUnavailableOneshotFallsBackToTwoshot() {
    Decision decision =
        heuristic.choose(
            withAvailable(
                tokens(32, 8192, DType.BF16, 4), EnumSet.of(Algorithm.TWOSHOT, Algorithm.NCCL)));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(decision.reason()).contains("→ oneshot; oneshot is not available here → twoshot");
  }

  @Test
  void otherCollectivesGoToNccl() {
    Decision decision =
        heuristic.choose(withCollective(tokens(32, 8192, DType.BF16, 4), Collective.ALLGATHER));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason()).contains("allreduce only");
  }

  @Test
  void noAlgorithmAtAllIsAnError() {
    assertThatThrownBy(
            () ->
                heuristic.choose(
                    withAvailable(
                        tokens(32, 8192, DType.BF16, 4), EnumSet.noneOf(Algorithm.class))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no algorithm to choose from");
  }

  @Test
  void thresholdsMustMakeSense() {
    assertThatThrownBy(() -> new TrtllmHeuristic(Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TrtllmHeuristic(Map.of(4, -1.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("world 4");
  }

  @Test
  void aMessageLargerThanTheIpcWorkspaceGoesToNcclAsUpstreamSendsIt() {
    long mib = 1L << 20;
    SizeQuery large = bytes(128 * mib, 2);

    Decision fitting = heuristic.choose(large);
    Decision tooLarge = heuristic.choose(withIpcWorkspace(large, 64 * mib));

    assertThat(fitting.reason()).doesNotContain("IPC workspace");
    assertThat(tooLarge.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(tooLarge.reason())
        .isEqualTo(
            "128 MiB is more than the 64 MiB IPC workspace, and FlashInfer's one-shot/two-shot"
                + " rule runs its IPC kernels only on messages that fit → nccl");
  }
}
