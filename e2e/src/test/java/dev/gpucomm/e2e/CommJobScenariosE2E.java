package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.e2e.cluster.ClusterExtension;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The stories of a CommJob from {@code kubectl apply} to its verdict, told against a cluster: the
 * offline one (mock API server, simulated node, the real operator and runtime on the CPU backend)
 * or a real one. Sizes and iteration counts are small: these check that the parts work together,
 * not how fast they are.
 */
@ExtendWith(ClusterExtension.class)
class CommJobScenariosE2E {
  private final Cluster cluster;
  private final Jobs jobs;

  CommJobScenariosE2E(Cluster cluster) {
    this.cluster = cluster;
    this.jobs = new Jobs(cluster);
  }

  @Test
  void anAllReduceSweepSucceedsWithTheReportInItsResultsAndTheHeuristicsChoices() {
    CommJob applied =
        cluster.apply(JobManifests.allReduceSweep("sweep", cluster.device(), "trtllm"));

    jobs.awaitPods("sweep", 1);
    CommJob job = jobs.awaitFinished("sweep");

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(jobs.condition(job, "Succeeded"))
        .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    ConfigMap results = jobs.results("sweep");
    assertThat(results.getData()).containsKeys("report.json", "report.md");
    BenchmarkReport report = Reports.benchmark(results.getData().get("report.json"));
    assertThat(report.worldSize()).as("ranks that rendezvoused").isEqualTo(2);
    assertThat(job.getStatus().getReportRef()).isEqualTo("sweep-results");
    List<SizeSummary> summary = job.getStatus().getSummary();
    assertThat(summary)
        .extracting(SizeSummary::getBytes)
        .containsExactlyElementsOf(JobManifests.SWEEP_BYTES);
    for (SizeSummary size : summary) {
      assertThat(size.getChosen())
          .as("algorithm auto chose for %d bytes", size.getBytes())
          .isEqualTo(Expectations.chosenByHeuristic(applied.getSpec(), size));
      assertThat(size.getBest()).isNotBlank();
      assertThat(size.getLatencyMicros()).isPositive();
    }
    assertThat(jobs.fetchReport("sweep", "md"))
        .isEqualToIgnoringNewLines(results.getData().get("report.md"));
    assertThat(results.getData()).as("the latency plot").containsKey("latency.svg");
    assertThat(jobs.fetchReport("sweep", "svg"))
        .isEqualToIgnoringNewLines(results.getData().get("latency.svg"));
    int measurements = report.sizes().stream().mapToInt(s -> s.measurements().size()).sum();
    assertThat(jobs.fetchReport("sweep", "csv").lines())
        .as("a header, then a row per size and algorithm")
        .hasSize(1 + measurements);
  }

  @Test
  void aRankKilledMidRunFailsTheJobWithinThirtySecondsNamingThatRank() {
    cluster.apply(JobManifests.longAllReduce("crash", cluster.device(), 600));
    jobs.awaitPods("crash", 1);
    jobs.awaitPhase("crash", Phase.RUNNING);

    Instant killed = jobs.killRankOnceItRuns("crash", 1, 2);

    CommJob job = jobs.awaitFinished("crash", Duration.ofSeconds(30));
    assertThat(Duration.between(killed, Instant.now())).isLessThan(Duration.ofSeconds(30));
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.FAILED);
    Condition failed = jobs.condition(job, "Failed").orElseThrow();
    assertThat(failed.getReason()).isEqualTo("RankFailed");
    assertThat(failed.getMessage()).contains("crash-0").contains("rank 1");
    // Pods left are only the failed ones, kept for their logs; nothing of the job still runs.
    await("no pod of crash left running")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(jobs.pods("crash"))
                    .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Failed")));
    jobs.awaitNoLiveProcesses("crash");
  }

  @Test
  void aJobWhosePodNeverStartsFailsWithTimeoutAtTimeoutPlusSchedulingTimeout() {
    // the run's timeout counts from when all pods run; pods that never all run get the
    // scheduling timeout on top to start. No pod starts: a started rank would give up waiting for
    // its peer first, and fail the job as RankFailed.
    cluster.neverStartPod("hang", 0);
    cluster.neverStartPod("hang", 1);
    cluster.apply(
        JobManifests.withSpecField(
            JobManifests.twoPodsWithTimeout("hang", cluster.device(), 12),
            "schedulingTimeoutSeconds: 5"));

    CommJob job = jobs.awaitFinished("hang", cluster.podStartup().plusSeconds(17 + 30));

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.FAILED);
    Condition failed = jobs.condition(job, "Failed").orElseThrow();
    assertThat(failed.getReason()).isEqualTo("Timeout");
    assertThat(failed.getMessage()).contains("not all running 17 s after they were created");
    Duration ran =
        Duration.between(
            Instant.parse(job.getStatus().getStartTime()),
            Instant.parse(job.getStatus().getCompletionTime()));
    assertThat(ran).isBetween(Duration.ofSeconds(16), Duration.ofSeconds(17 + 10));
  }

  @Test
  void anInvalidCommJobIsRefusedOrMarkedInvalidSpecAndCreatesNoPods() {
    String invalid = JobManifests.allReduceWithLayout("lopsided", cluster.device(), 3, 2);

    if (cluster.validatesAtAdmission()) {
      assertThatThrownBy(() -> cluster.apply(invalid))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.worldSize must be a multiple of spec.ranksPerPod");
      return;
    }
    cluster.apply(invalid);

    CommJob job = jobs.awaitFinished("lopsided", Duration.ofSeconds(30));
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.FAILED);
    Condition failed = jobs.condition(job, "Failed").orElseThrow();
    assertThat(failed.getReason()).isEqualTo("InvalidSpec");
    assertThat(failed.getMessage()).contains("spec.worldSize").contains("spec.ranksPerPod");
    assertThat(jobs.pods("lopsided")).isEmpty();
  }

  @Test
  void aRunSlowerThanItsBaselineIsRegressedAndOneWithinItIsNot() {
    cluster
        .client()
        .resource(Baselines.configMap("impossibly-fast", JobManifests.SWEEP_BYTES, 1e-3))
        .inNamespace(cluster.namespace())
        .create();
    cluster
        .client()
        .resource(Baselines.configMap("very-slow", JobManifests.SWEEP_BYTES, 1e9))
        .inNamespace(cluster.namespace())
        .create();
    cluster.apply(
        JobManifests.withBaseline(
            JobManifests.allReduceSweep("regressed", cluster.device(), "trtllm"),
            "impossibly-fast",
            5));
    cluster.apply(
        JobManifests.withBaseline(
            JobManifests.allReduceSweep("clean", cluster.device(), "trtllm"), "very-slow", 5));

    CommJob regressed = jobs.awaitFinished("regressed");
    CommJob clean = jobs.awaitFinished("clean");

    assertThat(regressed.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(jobs.condition(regressed, "Regressed"))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("SlowerThanBaseline");
              assertThat(c.getMessage()).contains(JobManifests.SWEEP_BYTES.getFirst() + " B");
            });
    assertThat(clean.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(jobs.condition(clean, "Regressed"))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("WithinBaseline");
            });
  }

  @Test
  void deletingARunningCommJobLeavesNothingBehind() {
    CommJob job = cluster.apply(JobManifests.longAllReduce("doomed", cluster.device(), 600));
    jobs.awaitPods("doomed", 1);
    jobs.awaitPhase("doomed", Phase.RUNNING);
    jobs.awaitLiveProcesses("doomed");

    List<HasMetadata> created = jobs.objectsOf("doomed");
    assertThat(created)
        .extracting(HasMetadata::getKind)
        .contains("Pod", "ConfigMap", "Service", "ServiceAccount", "Role", "RoleBinding");
    for (HasMetadata object : created) {
      assertThat(object.getMetadata().getOwnerReferences())
          .as("owners of %s %s", object.getKind(), object.getMetadata().getName())
          .anySatisfy(owner -> assertIsControlledBy(owner, job));
    }

    cluster.client().resource(job).delete();

    cluster.awaitNothingLeftOf("doomed", Duration.ofMinutes(2));
    assertThat(jobs.objectsOf("doomed")).isEmpty();
  }

  @Test
  void anOperatorRestartedMidJobCreatesNoDuplicatePodsAndTheJobFinishes() {
    Map<String, Integer> podsCreated = new ConcurrentHashMap<>();
    try (Watch watch = jobs.countPodCreations("restart", podsCreated)) {
      cluster.apply(JobManifests.mediumAllReduce("restart", cluster.device()));
      jobs.awaitPods("restart", 1);
      CommJob running = jobs.awaitPhase("restart", Phase.RUNNING);
      Set<String> podUids = jobs.podUids("restart");

      cluster.restartOperator();

      CommJob job = jobs.awaitFinished("restart");
      assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
      assertThat(job.getStatus().getStartTime()).isEqualTo(running.getStatus().getStartTime());
      assertThat(job.getStatus().getSummary()).isNotEmpty();
      assertThat(jobs.condition(job, "Succeeded"))
          .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
      assertThat(jobs.podUids("restart")).isEqualTo(podUids);
      assertThat(podsCreated).isEqualTo(Map.of("restart-0", 1));
    }
  }

  @Test
  void aRowParallelLinearProgramWithAssignStreamsReportsPipelinedAndUnpipelinedTimes() {
    cluster.apply(JobManifests.rowParallelLinear("rpl", cluster.device()));

    CommJob job = jobs.awaitFinished("rpl");

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    ProgramReport report = Reports.program(jobs.results("rpl").getData().get("report.json"));
    assertThat(report.program()).isEqualTo("rowParallelLinear");
    assertThat(report.passes()).contains("assignStreams");
    assertThat(report.times().pipelinedMillis()).isPositive();
    assertThat(report.times().unpipelinedMillis()).isPositive();
    assertThat(jobs.results("rpl").getData().get("report.md"))
        .contains("pipelined")
        .contains("unpipelined");
  }

  /** Owned and controlled: the garbage collector deletes it, kubectl shows "Controlled By". */
  private static void assertIsControlledBy(OwnerReference owner, CommJob job) {
    assertThat(owner.getUid()).isEqualTo(job.getMetadata().getUid());
    assertThat(owner.getKind()).isEqualTo("CommJob");
    assertThat(owner.getController()).isTrue();
  }
}
