package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.RankFigure;
import dev.gpucomm.api.v1alpha1.report.RankOutliers;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.SlowRank;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rank slowed by a cause of its own is named as the outlier, with its pod and node: three pods of
 * one rank each run {@code gpucomm launch} on this host with the variables the operator gives pods,
 * while the process of rank 1 is stopped for four fifths of the time, as a CPU quota throttles a
 * container for most of each period. Every rank's calls then take as long as rank 1's, so only the
 * ranks' own time outside their waits for each other tells which rank it was.
 */
@EnabledOnOs(OS.LINUX)
@Timeout(120)
class SlowRankIT {
  private static final String JOB = "slow-rank";
  private static final int PODS = 3;
  private static final int SLOW_RANK = 1;

  /**
   * Stopped 38 ms of every 47: about five times slower. A period that does not divide a second
   * keeps the launcher's once-a-second look for stopped ranks from always landing in the stop.
   */
  private static final Duration RUNNING = Duration.ofMillis(9);

  private static final Duration STOPPED = Duration.ofMillis(38);

  private static final String JOB_JSON =
      """
      {"apiVersion": "gpucomm.dev/v1alpha1", "kind": "CommJob",
       "metadata": {"name": "slow-rank", "namespace": "ml"},
       "spec": {"worldSize": 3, "ranksPerPod": 1, "device": "cpu", "timeoutSeconds": 100,
                "workload": {"kind": "benchmark",
                             "benchmark": {"dtype": "fp32", "sizes": [65536],
                                           "algorithms": ["ring"], "cudaGraph": false,
                                           "warmupIterations": 1, "iterations": 100}}}}
      """;

  @TempDir Path dir;
  private final ExecutorService pods = Executors.newFixedThreadPool(PODS);

  @AfterEach
  void stopPods() {
    pods.shutdownNow();
  }

  @Test
  void aRankWhoseProcessIsThrottledIsTheOnlyOutlierNamedWithItsPodAndNode() throws Exception {
    Path jobFile = Files.writeString(dir.resolve("job.json"), JOB_JSON);
    Path reportDir = dir.resolve("report");
    int storePort = freePort();
    List<Future<CliRun>> launches = new ArrayList<>();
    for (int pod = 0; pod < PODS; pod++) {
      Map<String, String> env = podEnvironment(pod, storePort, jobFile);
      if (pod == 0) {
        env.put("GPUCOMM_REPORT_DIR", reportDir.toString());
      }
      launches.add(pods.submit(() -> CliRun.of(env, "launch")));
    }
    ProcessHandle slowRank =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> rankProcess(SLOW_RANK), Optional::isPresent)
            .orElseThrow();

    try (DutyCycleThrottle throttle = new DutyCycleThrottle(slowRank, RUNNING, STOPPED)) {
      for (Future<CliRun> launch : launches) {
        CliRun run = launch.get(100, TimeUnit.SECONDS);
        assertThat(run.exitCode()).as(run.err()).isZero();
      }
    }

    BenchmarkReport report = ReportJson.readBenchmark(reportDir.resolve("report.json"));
    List<SlowRank> slowest = RankOutliers.of(report);
    assertThat(slowest)
        .singleElement()
        .satisfies(
            slow -> {
              assertThat(slow.rank()).as("the slowest rank").isEqualTo(SLOW_RANK);
              assertThat(slow.node()).isEqualTo("node-b");
              assertThat(slow.figure()).isEqualTo(RankFigure.OWN_TIME);
              assertThat(slow.outlier()).as("%s", slow).isTrue();
            });
    assertThat(report.ranks().get(SLOW_RANK).pod()).isEqualTo("slow-rank-1");
    assertThat(Files.readString(reportDir.resolve("report.md")))
        .contains("| 64 KB | ring | 1 | node-b |");
  }

  private static Map<String, String> podEnvironment(int pod, int storePort, Path jobFile) {
    Map<String, String> env = new HashMap<>();
    env.put("GPUCOMM_JOB", JOB);
    env.put("GPUCOMM_NAMESPACE", "ml");
    env.put("GPUCOMM_POD_INDEX", Integer.toString(pod));
    env.put("GPUCOMM_RANKS_PER_POD", "1");
    env.put("GPUCOMM_WORLD_SIZE", Integer.toString(PODS));
    env.put("GPUCOMM_RENDEZVOUS", "127.0.0.1:" + storePort);
    env.put("GPUCOMM_JOB_FILE", jobFile.toString());
    env.put("GPUCOMM_TERMINATION_LOG", jobFile.resolveSibling("termination-log-" + pod).toString());
    // what the operator's downward API gives each pod
    env.put("GPUCOMM_POD_NAME", JOB + "-" + pod);
    env.put("GPUCOMM_NODE_NAME", "node-" + (char) ('a' + pod));
    return env;
  }

  /** The process of {@code rank} of this job among this JVM's descendants, by its environment. */
  private static Optional<ProcessHandle> rankProcess(int rank) {
    List<String> wanted = List.of("RANK=" + rank, "GPUCOMM_JOB=" + JOB);
    return ProcessHandle.current()
        .descendants()
        .filter(process -> environmentOf(process).containsAll(wanted))
        .findFirst();
  }

  private static List<String> environmentOf(ProcessHandle process) {
    try {
      byte[] environ =
          Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "environ"));
      return Arrays.asList(new String(environ, StandardCharsets.UTF_8).split("\0"));
    } catch (IOException gone) {
      return List.of();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }
}
