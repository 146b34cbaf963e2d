package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static dev.gpucomm.runtime.heuristic.Queries.withAvailable;
import static dev.gpucomm.runtime.heuristic.Queries.withPodLink;
import static dev.gpucomm.runtime.heuristic.Queries.withRanksPerNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tuning curves carry the layout they were measured with, and measured picks the job's. */
class LayoutKeyedTuningTest {
  private static final long MIB = 1L << 20;
  private static final Set<Algorithm> CUDA_ACROSS_PODS =
      EnumSet.of(Algorithm.NCCL, Algorithm.HIERARCHICAL);

  /** World 4 tuned twice: on one pod of 4 (twoshot wins) and on 2 pods of 2. */
  private static TuningTable tunedOnBothLayouts() {
    return TuningTable.fromMeasurements(
        "cluster",
        Collective.ALLREDUCE,
        List.of(
            sample(4, MIB, Algorithm.NCCL, 30, 4),
            sample(4, MIB, Algorithm.TWOSHOT, 20, 4),
            sample(4, 64 * MIB, Algorithm.NCCL, 900, 4),
            sample(4, 64 * MIB, Algorithm.TWOSHOT, 800, 4),
            sample(4, MIB, Algorithm.NCCL, 200, 2),
            sample(4, MIB, Algorithm.HIERARCHICAL, 260, 2),
            sample(4, 64 * MIB, Algorithm.NCCL, 9000, 2),
            sample(4, 64 * MIB, Algorithm.HIERARCHICAL, 6000, 2)));
  }

  private static TuningSample sample(
      int world, long bytes, Algorithm algorithm, double micros, int ranksPerNode) {
    return new TuningSample(world, DType.BF16, bytes, algorithm, micros, ranksPerNode);
  }

  private static SizeQuery acrossTwoPods(long bytes) {
    return withAvailable(withRanksPerNode(bytes(bytes, 4), 2), CUDA_ACROSS_PODS);
  }

  @Test
  void aJobOnTwoPodsOfTwoGetsTheCurveTunedOnThatLayout() {
    MeasuredHeuristic measured =
        new MeasuredHeuristic(tunedOnBothLayouts(), Collective.ALLREDUCE, 4, DType.BF16);

    Decision small = measured.choose(acrossTwoPods(MIB));
    Decision large = measured.choose(acrossTwoPods(64 * MIB));
    Decision onePod = measured.choose(bytes(64 * MIB, 4));

    assertThat(small.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(large.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(large.reason())
        .startsWith("tuning table cluster (world 4, 2 pods × 2 ranks, bf16): 64 MiB in");
    assertThat(onePod.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(onePod.reason()).contains("(world 4, 1 pod × 4 ranks, bf16)");
  }

  @Test
  void aCurveOfTheJobsLayoutOutranksTheAcrossPodsRuleWhateverLinksThePods() {
    MeasuredHeuristic measured =
        new MeasuredHeuristic(tunedOnBothLayouts(), Collective.ALLREDUCE, 4, DType.BF16);
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");

    Decision large = measured.choose(withPodLink(acrossTwoPods(64 * MIB), nvlink));

    assertThat(large.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(large.reason()).startsWith("tuning table cluster (world 4, 2 pods × 2 ranks, bf16)");
  }

  @Test
  void aLayoutTheTableLacksFallsBackToTheRuleWhichRunsNcclOverAPeerLink() {
    TuningTable onePodOnly =
        TuningTable.fromMeasurements(
            "one-pod",
            Collective.ALLREDUCE,
            List.of(
                sample(4, MIB, Algorithm.TWOSHOT, 20, 4), sample(4, MIB, Algorithm.NCCL, 30, 4)));
    MeasuredHeuristic measured =
        new MeasuredHeuristic(onePodOnly, Collective.ALLREDUCE, 4, DType.BF16);
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");

    Decision decision = measured.choose(withPodLink(acrossTwoPods(64 * MIB), nvlink));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason())
        .endsWith(
            "falling back to the across-pods rule: nccl (pods reach each other over intra-node"
                + " p2p (NVL): flat nccl sees every GPU, hierarchical only adds steps)");
  }

  @Test
  void aLayoutTheTableLacksFallsBackToTheAcrossPodsRuleAndSaysSo() {
    TuningTable onePodOnly =
        TuningTable.fromMeasurements(
            "one-pod",
            Collective.ALLREDUCE,
            List.of(
                sample(4, MIB, Algorithm.TWOSHOT, 20, 4), sample(4, MIB, Algorithm.NCCL, 30, 4)));
    MeasuredHeuristic measured =
        new MeasuredHeuristic(onePodOnly, Collective.ALLREDUCE, 4, DType.BF16);

    Decision decision = measured.choose(acrossTwoPods(64 * MIB));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.HIERARCHICAL);
    assertThat(decision.reason())
        .startsWith(
            "tuning table one-pod has no curve for 2 pods × 2 ranks bf16 (it has 1 pod × 4"
                + " ranks); falling back to the across-pods rule: hierarchical");
  }

  @Test
  void aTableFromBeforeLayoutsStandsInForAJobAcrossPodsAndTheReasonSaysSo() {
    TuningTable old =
        TuningTable.fromMeasurements(
            "old",
            Collective.ALLREDUCE,
            List.of(
                new TuningSample(4, DType.BF16, MIB, Algorithm.NCCL, 30),
                new TuningSample(4, DType.BF16, MIB, Algorithm.HIERARCHICAL, 40)));

    Decision acrossPods = new MeasuredHeuristic(old).choose(acrossTwoPods(MIB));
    Decision onePod = new MeasuredHeuristic(old).choose(bytes(MIB, 4));

    assertThat(acrossPods.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(acrossPods.reason())
        .startsWith(
            "tuning table old has no curve for 2 pods × 2 ranks bf16 (it has layout not"
                + " recorded); using its curve of world 4 without a layout: tuning table old"
                + " (world 4, bf16)");
    assertThat(onePod.reason()).startsWith("tuning table old (world 4, bf16)");
  }

  @Test
  void layoutsSurviveTheJsonFileAndOldFilesReadWithoutOne() {
    TuningTable table = tunedOnBothLayouts();

    TuningTable reread = TuningTableJson.parse(TuningTableJson.write(table), "cluster.json");
    TuningTable old =
        TuningTableJson.parse(
            """
            {"schemaVersion": 1, "name": "old", "collective": "allreduce",
             "curves": [{"worldSize": 4, "dtype": "bf16",
                         "ranges": [{"fromBytes": 1024, "toBytes": 2048, "algorithm": "nccl"}]}]}
            """,
            "old.json");

    assertThat(reread).isEqualTo(table);
    assertThat(reread.curves()).extracting(TuningCurve::ranksPerNode).containsExactly(2, 4);
    assertThat(old.curves().getFirst().layoutRecorded()).isFalse();
  }

  @Test
  void curvesOfTheSameWorldButAnotherLayoutDoNotReplaceEachOtherWhenMerged() {
    TuningTable onePod =
        TuningTable.fromMeasurements(
            "a", Collective.ALLREDUCE, List.of(sample(4, MIB, Algorithm.TWOSHOT, 20, 4)));
    TuningTable twoPods =
        TuningTable.fromMeasurements(
            "b", Collective.ALLREDUCE, List.of(sample(4, MIB, Algorithm.NCCL, 200, 2)));

    assertThat(onePod.mergedWith(twoPods).curves())
        .extracting(TuningCurve::layout)
        .containsExactly("2 pods × 2 ranks", "1 pod × 4 ranks");
  }
}
