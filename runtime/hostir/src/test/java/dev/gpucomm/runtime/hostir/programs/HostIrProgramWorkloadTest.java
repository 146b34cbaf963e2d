package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.hostir.RankThreads;
import dev.gpucomm.runtime.launch.StagedReportDirectory;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import dev.gpucomm.runtime.testing.InMemoryStore;
import dev.gpucomm.runtime.workload.ProgramWorkload;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class HostIrProgramWorkloadTest {
  private static final String JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: row-parallel}
      spec:
        worldSize: 2
        device: cpu
        workload:
          kind: program
          program:
            name: rowParallelLinear
            shape: {m: 16, n: 8, k: 8}
            chunks: 4
            passes: [assignStreams]
            streams: 2
            warmupIterations: 1
            iterations: 3
      """;

  @Test
  void theRankFlowFindsTheWorkloadThroughTheServiceLoader() {
    assertThat(ServiceLoader.load(ProgramWorkload.class).findFirst())
        .get()
        .isInstanceOf(HostIrProgramWorkload.class);
  }

  @Test
  void givenAProgramJob_rankZeroReturnsTheReportAndTheDump_otherRanksNothing() throws Exception {
    LoadedJob job = new JobLoader().load(JOB, "row-parallel.yaml");
    CpuBackend backend = ProgramsOnCpuTest.backend();
    InMemoryStore store = new InMemoryStore();

    List<WorkloadResult> results =
        RankThreads.run(
            2,
            Duration.ofSeconds(60),
            rank -> {
              RankTopology topology = new RankTopology(rank, 2, rank, 2);
              try (CpuDevice device = backend.open(rank);
                  Communicator communicator = backend.createCommunicator(device, store, topology)) {
                return new HostIrProgramWorkload()
                    .run(
                        new RankContext(
                            job,
                            topology,
                            device,
                            communicator,
                            store,
                            Duration.ofSeconds(30),
                            ProgressDisplay.silent(),
                            true));
              }
            });

    assertThat(results.get(1).isEmpty()).isTrue();
    WorkloadResult result = results.get(0);
    assertThat(result.files())
        .containsOnlyKeys(
            "report.json", "report.md", "program.json", "timeline.json", "host-ir.txt");
    assertThat(result.files().get("host-ir.txt"))
        .contains("// after assignStreams\n%HostIrContainer {");
    assertThat(result.summaryMarkdown())
        .startsWith("## rowParallelLinear on 2 × cpu")
        .contains("| pipelined |")
        .contains("Results match the unpipelined form and exact values on every rank.");

    Report report = ReportJson.parse(result.files().get("report.json"), "report.json");
    assertThat(report).isInstanceOf(ProgramReport.class);
    ProgramReport program = (ProgramReport) report;
    assertThat(program.job()).isEqualTo("row-parallel");
    assertThat(program.program()).isEqualTo("rowParallelLinear");
    assertThat(program.passes()).containsExactly("assignStreams");
    assertThat(List.of(program.m(), program.n(), program.k())).containsExactly(16L, 8L, 8L);
    assertThat(program.chunks()).isEqualTo(4);
    assertThat(program.times().pipelinedMillis()).isPositive();
    assertThat(program.times().unpipelinedMillis()).isPositive();
    assertThat(program.maxRelativeError()).isBetween(0.0, 0x1p-6);
    assertThat(result.files().get("report.md")).contains("matmul alone");

    JsonNode details = new ObjectMapper().readTree(result.files().get("program.json"));
    assertThat(details.get("validated").asBoolean()).isTrue();
    assertThat(details.get("ranks")).hasSize(2);
    assertThat(details.get("workerStreams").asInt()).isEqualTo(2);
    assertThat(details.get("extraCommunicators").asInt()).isEqualTo(2);
    assertThat(result.files().keySet())
        .as("a run into the same report directory replaces every file of this one")
        .allMatch(StagedReportDirectory::isReportFile);
  }

  @Test
  void theFilesAProgramAddsToItsReportMayBeReplacedByTheNextRun() {
    assertThat(StagedReportDirectory.isReportFile(HostIrProgramWorkload.DETAILS)).isTrue();
    assertThat(StagedReportDirectory.isReportFile(HostIrProgramWorkload.HOST_IR)).isTrue();
    assertThat(StagedReportDirectory.isReportFile(ProgramTimelines.FILE)).isTrue();
  }
}
