package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.runtime.kube.MockApiServer;
import dev.gpucomm.runtime.launch.RankError;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpucomm launch} as pod 0 of a one-pod job runs it: GPUCOMM_* env from the operator, the
 * job file it mounts, the results ConfigMap it pre-creates (on a mock API server).
 */
@Timeout(180)
class GpucommLaunchIT {
  private static final String JOB_JSON =
      """
      {"apiVersion": "gpucomm.dev/v1alpha1", "kind": "CommJob",
       "metadata": {"name": "pod-it", "namespace": "ml"},
       "spec": {"worldSize": 2, "ranksPerPod": 2, "device": "cpu", "timeoutSeconds": 120,
                "workload": {"kind": "benchmark",
                             "benchmark": {"dtype": "fp16", "sizes": [1024],
                                           "warmupIterations": 1, "iterations": 2}}}}
      """;

  @TempDir Path dir;
  private KubernetesMockServer api;
  private KubernetesClient admin;
  private Map<String, String> env;

  @BeforeEach
  void podEnvironment() throws Exception {
    api = MockApiServer.start();
    admin = api.createClient();
    admin
        .configMaps()
        .inNamespace("ml")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("pod-it-results")
                .endMetadata()
                .build())
        .create();
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    env = new HashMap<>();
    env.put("GPUCOMM_JOB", "pod-it");
    env.put("GPUCOMM_NAMESPACE", "ml");
    env.put("GPUCOMM_POD_INDEX", "0");
    env.put("GPUCOMM_RANKS_PER_POD", "2");
    env.put("GPUCOMM_WORLD_SIZE", "2");
    env.put("GPUCOMM_RENDEZVOUS", "127.0.0.1:" + port);
    env.put("GPUCOMM_JOB_FILE", Files.writeString(dir.resolve("job.json"), JOB_JSON).toString());
    env.put("GPUCOMM_KUBE_API", MockApiServer.url(api));
    env.put("GPUCOMM_TERMINATION_LOG", dir.resolve("termination-log").toString());
  }

  @AfterEach
  void stop() {
    admin.close();
    api.destroy();
  }

  private Map<String, String> results() {
    Map<String, String> data =
        admin.configMaps().inNamespace("ml").withName("pod-it-results").get().getData();
    return data == null ? Map.of() : data;
  }

  @Test
  void rankZeroPublishesTheReportToTheResultsConfigMap() throws Exception {
    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).as(run.err()).isZero();
    Map<String, String> results = results();
    assertThat(results)
        .containsKeys("report.json", "report.md", "latency.svg")
        .doesNotContainKey("report.csv");
    assertThat(new ObjectMapper().readTree(results.get("report.json")).path("job").asText())
        .isEqualTo("pod-it");
    assertThat(dir.resolve("termination-log")).doesNotExist();
  }

  @Test
  void aFailingRankEndsUpInTheTerminationMessage() throws Exception {
    env.put("GPUCOMM_TEST_FAIL_RANK", "1");

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("termination-log")))
        .startsWith("rank 1 failed: injected failure (GPUCOMM_TEST_FAIL_RANK=1)");
    assertThat(results()).isEmpty();
  }

  @Test
  void onAHostWithoutAClusterTheReportDirectoryIsReplacedWholeOnlyWhenEveryRankSucceeded()
      throws Exception {
    env.remove("GPUCOMM_KUBE_API");
    Path reports = dir.resolve("reports");
    env.put("GPUCOMM_REPORT_DIR", reports.toString());

    CliRun first = CliRun.of(env, "launch");
    String firstReport = Files.readString(reports.resolve("report.json"));
    env.put("GPUCOMM_TEST_FAIL_RANK", "1");
    CliRun failed = CliRun.of(env, "launch");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(reports.resolve("report.json")).hasContent(firstReport);
    try (var entries = Files.list(dir)) {
      assertThat(entries.map(p -> p.getFileName().toString()))
          .as("no staging directory left beside the report")
          .noneMatch(name -> name.contains(".partial-"));
    }
  }

  @Test
  void aReportDirectoryHoldingOtherFilesIsRefusedBeforeAnyRankStarts() throws Exception {
    env.remove("GPUCOMM_KUBE_API");
    Path notes = Files.createDirectories(dir.resolve("notes"));
    Files.writeString(notes.resolve("report.md"), "my own notes");
    Files.writeString(notes.resolve("todo.txt"), "keep me");
    env.put("GPUCOMM_REPORT_DIR", notes.toString());

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("gpucomm launch: GPUCOMM_REPORT_DIR: " + notes + " ");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(notes.resolve("report.md")).hasContent("my own notes");
    assertThat(notes.resolve("todo.txt")).hasContent("keep me");
  }

  @Test
  void aJobWhoseBuffersCannotFitThePodsHostIsRefusedBeforeAnyRankStarts() throws Exception {
    // operands of 10^7 x 10^7 on the CPU backend: far more host memory than any host has
    String program =
        JOB_JSON.substring(0, JOB_JSON.indexOf("\"workload\""))
            + "\"workload\": {\"kind\": \"program\", \"program\": {\"name\": \"rowParallelLinear\","
            + " \"shape\": {\"m\": 10000000, \"n\": 10000000, \"k\": 10000000}}}}}";
    env.put("GPUCOMM_JOB_FILE", Files.writeString(dir.resolve("program.json"), program).toString());

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("gpucomm launch: " + dir.resolve("program.json") + ": ")
        .contains("of host memory");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void aRankSwitchNoRankKnowsIsRefusedOnceBeforeAnyRankStarts() {
    env.put("GPUCOMM_CPU_BIND", "bogus");

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("gpucomm launch: GPUCOMM_CPU_BIND: unknown value 'bogus'");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void aGpuSettingTheRanksWouldRefuseOnTheirGpusIsRefusedBeforeAnyRankStarts() throws Exception {
    // a job on GPUs, checked by a launcher that needs none: the ranks would find it 4 s in
    env.put(
        "GPUCOMM_JOB_FILE",
        Files.writeString(
                dir.resolve("cuda.json"),
                JOB_JSON.replace("\"device\": \"cpu\"", "\"device\": \"cuda\""))
            .toString());
    env.put("GPUCOMM_FUSED_CLUSTER", "maybe");

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("gpucomm launch: GPUCOMM_FUSED_CLUSTER must be on or off, got 'maybe'");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(Files.readString(dir.resolve("termination-log")))
        .contains("GPUCOMM_FUSED_CLUSTER must be on or off");
  }

  @Test
  void aGpuSettingMeansNothingToAJobOnTheCpu() {
    env.put("GPUCOMM_FUSED_CLUSTER", "maybe");

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  @Test
  void aSupervisedRankStartedWithoutItsSettingsTellsItsLauncherWhy() throws Exception {
    // the launcher sets a rank's world and ranks; a rank started with only an error file has none
    Path errorFile = dir.resolve("rank-0.error");
    Map<String, String> bare = Map.of("GPUCOMM_ERROR_FILE", errorFile.toString());

    CliRun run = CliRun.of(bare, "rank");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEmpty(); // the launcher says it, naming the rank
    assertThat(RankError.readFrom(errorFile))
        .hasValueSatisfying(
            error -> {
              assertThat(error.kind()).isEqualTo(RankError.Kind.USAGE);
              assertThat(error.message())
                  .endsWith("required (set by gpucomm launch or gpucomm run)");
            });
    // it started: the launcher must not blame the JVM's options
    assertThat(dir.resolve("rank-0.error.started")).exists();
  }

  @Test
  void aPodWhosePeerNeverComesSaysWhichRankNeverConnectedBeforeItsTimeout() throws Exception {
    // pod 0 of a two-pod job whose pod 1 never starts
    String twoPods =
        JOB_JSON
            .replace("\"ranksPerPod\": 2", "\"ranksPerPod\": 1")
            .replace("\"timeoutSeconds\": 120", "\"timeoutSeconds\": 6");
    env.put(
        "GPUCOMM_JOB_FILE", Files.writeString(dir.resolve("two-pods.json"), twoPods).toString());
    env.put("GPUCOMM_RANKS_PER_POD", "1");

    CliRun run = CliRun.of(env, "launch");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("rank 0 failed: rendezvous: barrier 'joined' timed out")
        .contains("never connected: 1");
  }
}
