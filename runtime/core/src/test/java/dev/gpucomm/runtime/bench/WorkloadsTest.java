package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The benchmark and tune workloads from job text to report files, with ranks as threads: a tune
 * job's table drives a measured heuristic's choices in a later benchmark job.
 */
@Timeout(120)
class WorkloadsTest {
  @TempDir Path dir;

  private static List<WorkloadResult> run(String yaml, RankWorkload workload) {
    LoadedJob job = new JobLoader().load(yaml, "job.yaml");
    int world = job.job().getSpec().getWorldSize();
    return ThreadRanks.run(
        world,
        rank ->
            workload.run(
                new RankContext(
                    job,
                    new RankTopology(rank.rank(), world, rank.rank(), world),
                    rank.device(),
                    rank.communicator(),
                    rank.store(),
                    Duration.ofSeconds(30),
                    ProgressDisplay.silent(),
                    false)));
  }

  /** As {@link #run}, with the ranks in the job's pods of spec.ranksPerPod. */
  private static List<WorkloadResult> runInPods(String yaml, RankWorkload workload) {
    LoadedJob job = new JobLoader().load(yaml, "job.yaml");
    int world = job.job().getSpec().getWorldSize();
    int perPod = job.job().getSpec().getRanksPerPod();
    return ThreadRanks.run(
        world,
        perPod,
        rank ->
            workload.run(
                new RankContext(
                    job,
                    new RankTopology(rank.rank(), world, rank.rank() % perPod, perPod),
                    rank.device(),
                    rank.communicator(),
                    rank.store(),
                    Duration.ofSeconds(30),
                    ProgressDisplay.silent(),
                    false)));
  }

  @Test
  void aTuneJobsTableDrivesTheMeasuredHeuristic() throws Exception {
    String tune =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: tune-it}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          workload:
            kind: tune
            tune: {dtype: fp32, sizes: [1024, 65536], algorithms: [oneshot, twoshot], iterations: 3, warmupIterations: 1}
        """;

    List<WorkloadResult> tuned = run(tune, new TuneWorkload(TuningTableJson.fileLoader()));

    assertThat(tuned.get(1).isEmpty()).as("rank 1 reports nothing").isTrue();
    WorkloadResult result = tuned.getFirst();
    assertThat(result.files())
        .containsKeys("report.json", "report.csv", "report.md", "latency.svg", "tuning.json");
    Path tableFile =
        Files.writeString(dir.resolve("tuning.json"), result.files().get("tuning.json"));
    TuningTable table = TuningTableJson.read(tableFile);
    assertThat(table.name()).isEqualTo("tune-it");
    assertThat(table.curve(2, dev.gpucomm.api.v1alpha1.DType.FP32)).isPresent();

    String measured =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: measured-it}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          heuristic: {name: measured, tuningRef: TABLE}
          workload:
            kind: benchmark
            benchmark: {dtype: fp32, sizes: [1024, 65536], algorithms: [auto], iterations: 3, warmupIterations: 1}
        """
            .replace("TABLE", tableFile.toString());

    WorkloadResult benchmark =
        run(measured, new BenchmarkWorkload(TuningTableJson.fileLoader())).getFirst();

    var report = new ObjectMapper().readTree(benchmark.files().get("report.json"));
    assertThat(report.path("heuristic").asText()).isEqualTo("measured");
    for (int i = 0; i < 2; i++) {
      long bytes = report.path("sizes").get(i).path("bytes").asLong();
      Algorithm expected =
          table.require(2, dev.gpucomm.api.v1alpha1.DType.FP32).rangeFor(bytes).algorithm();
      assertThat(report.path("sizes").get(i).path("chosen").asText())
          .isEqualTo(expected.wireName());
    }
    assertThat(benchmark.summaryMarkdown()).contains("measured");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"allgather", "reducescatter"})
  void aTuneJobOfAllGatherOrReduceScatterMeasuresCopyengineAndServesAuto(String collective)
      throws Exception {
    String tune =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: tune-COLLECTIVE}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          workload:
            kind: tune
            tune: {collective: COLLECTIVE, dtype: bf16, sizes: [1024, 65536], iterations: 3, warmupIterations: 1}
        """
            .replace("COLLECTIVE", collective);

    WorkloadResult tuned = run(tune, new TuneWorkload(TuningTableJson.fileLoader())).getFirst();

    var tuneReport = new ObjectMapper().readTree(tuned.files().get("report.json"));
    List<String> measured = new ArrayList<>();
    tuneReport
        .path("sizes")
        .get(0)
        .path("measurements")
        .forEach(m -> measured.add(m.path("algorithm").asText()));
    assertThat(measured).containsExactly("ring", "oneshot", "copyengine");
    Path tableFile =
        Files.writeString(dir.resolve("tuning.json"), tuned.files().get("tuning.json"));
    TuningTable table = TuningTableJson.read(tableFile);
    assertThat(table.collective().wireName()).isEqualTo(collective);

    String benchmark =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: measured-COLLECTIVE}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          heuristic: {name: measured, tuningRef: TABLE}
          workload:
            kind: benchmark
            benchmark: {collective: COLLECTIVE, dtype: bf16, sizes: [1024, 65536], algorithms: [auto], iterations: 3, warmupIterations: 1}
        """
            .replace("COLLECTIVE", collective)
            .replace("TABLE", tableFile.toString());

    WorkloadResult result =
        run(benchmark, new BenchmarkWorkload(TuningTableJson.fileLoader())).getFirst();

    var report = new ObjectMapper().readTree(result.files().get("report.json"));
    for (int i = 0; i < 2; i++) {
      long bytes = report.path("sizes").get(i).path("bytes").asLong();
      Algorithm expected =
          table.require(2, dev.gpucomm.api.v1alpha1.DType.BF16).rangeFor(bytes).algorithm();
      assertThat(report.path("sizes").get(i).path("chosen").asText())
          .as("auto at %d bytes", bytes)
          .isEqualTo(expected.wireName());
    }
  }

  @Test
  void aTuneJobAcrossPodsRecordsItsLayoutAndMeasuredUsesThatCurve() throws Exception {
    String tune =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: tune-pods}
        spec:
          worldSize: 4
          ranksPerPod: 2
          device: cpu
          workload:
            kind: tune
            tune: {dtype: fp32, sizes: [1024, 65536], algorithms: [ring, hierarchical], iterations: 3, warmupIterations: 1}
        """;

    WorkloadResult tuned =
        runInPods(tune, new TuneWorkload(TuningTableJson.fileLoader())).getFirst();

    Path tableFile = Files.writeString(dir.resolve("pods.json"), tuned.files().get("tuning.json"));
    TuningTable table = TuningTableJson.read(tableFile);
    assertThat(table.curve(4, 2, dev.gpucomm.api.v1alpha1.DType.FP32)).isPresent();
    assertThat(table.curve(4, 4, dev.gpucomm.api.v1alpha1.DType.FP32)).isEmpty();
    assertThat(tuned.files().get("tuning.json")).contains("\"ranksPerNode\" : 2");
    // the CPU backend's curves name its kind alone: its name's core count follows a pod's limit
    String device = table.curves().getFirst().device();
    assertThat(device).isEqualTo("cpu");

    String measured =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: measured-pods}
        spec:
          worldSize: 4
          ranksPerPod: 2
          device: cpu
          heuristic: {name: measured, tuningRef: TABLE}
          workload:
            kind: benchmark
            benchmark: {dtype: fp32, sizes: [1024, 65536], algorithms: [auto], iterations: 3, warmupIterations: 1}
        """
            .replace("TABLE", tableFile.toString());

    WorkloadResult benchmark =
        runInPods(measured, new BenchmarkWorkload(TuningTableJson.fileLoader())).getFirst();

    var report = new ObjectMapper().readTree(benchmark.files().get("report.json"));
    assertThat(report.path("sizes").get(0).path("chosenReason").asText())
        .startsWith("tuning table tune-pods (world 4, 2 pods × 2 ranks, fp32, " + device + ")");
    // The CPU backend's transports are its own: no fabric section.
    assertThat(report.path("fabric").size()).isZero();
  }

  @Test
  void anInPlaceJobMeasuresTheLibraryAlgorithmAndSaysSoInItsReport() throws Exception {
    String job =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: in-place}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {dtype: bf16, sizes: [4096], inPlace: true, iterations: 3, warmupIterations: 1}
        """;

    WorkloadResult result =
        run(job, new BenchmarkWorkload(TuningTableJson.fileLoader())).getFirst();

    var report = new ObjectMapper().readTree(result.files().get("report.json"));
    assertThat(report.path("inPlace").asBoolean()).isTrue();
    var measurements = report.path("sizes").get(0).path("measurements");
    assertThat(measurements).hasSize(1);
    assertThat(measurements.get(0).path("algorithm").asText()).isEqualTo("ring");
    assertThat(result.files().get("report.md"))
        .startsWith("# allreduce · bf16 · world 2 · in place");
  }
}
