package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.e2e.cluster.ClusterExtension;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A CommJob's lifecycle as a queue and a CI pipeline drive it: created suspended and started when
 * unsuspended (Kueue's contract), started afresh after losing a pod (its failurePolicy), and
 * deleted with all it owns once its TTL after finishing passes.
 */
@ExtendWith(ClusterExtension.class)
class CommJobLifecycleE2E {
  private final Cluster cluster;
  private final Jobs jobs;

  CommJobLifecycleE2E(Cluster cluster) {
    this.cluster = cluster;
    this.jobs = new Jobs(cluster);
  }

  @Test
  void aJobCreatedSuspendedRunsNothingUntilUnsuspendedThenSucceeds() {
    cluster.apply(
        JobManifests.withSpecField(
            JobManifests.allReduceSweep("admitted", cluster.device(), "trtllm"), "suspend: true"));

    await("admitted stays suspended without pods")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                jobs.pods("admitted").isEmpty()
                    && Jobs.phaseOf(jobs.get("admitted")) != Phase.RUNNING);
    assertThat(jobs.condition(jobs.get("admitted"), "Suspended"))
        .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));

    cluster
        .client()
        .resources(CommJob.class)
        .inNamespace(cluster.namespace())
        .withName("admitted")
        .edit(
            job -> {
              job.getSpec().setSuspend(false);
              return job;
            });

    CommJob job = jobs.awaitFinished("admitted");
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(jobs.condition(job, "Suspended"))
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("JobResumed"));
    assertThat(jobs.results("admitted").getData()).containsKey("report.json");
  }

  @Test
  void aPodLostBeforeItsRanksJoinedRestartsTheWholeJobWhoseNewRunSucceeds() {
    cluster.holdFirstPod("resilient", 1);
    cluster.apply(
        JobManifests.withSpecField(
            JobManifests.multiPodSweep("resilient", cluster.device(), 2, 1),
            "failurePolicy: {maxRestarts: 1}"));
    List<String> firstRun =
        jobs.awaitPods("resilient", 2).stream().map(pod -> pod.getMetadata().getUid()).toList();
    // rank 0 runs and waits at the rendezvous for rank 1, whose pod never starts
    jobs.awaitLiveProcesses("resilient");
    await("resilient's pods recorded as created")
        .atMost(Duration.ofSeconds(30))
        .until(() -> jobs.get("resilient").getStatus().getStartTime() != null);

    // the stuck pod is taken away, as a drain of its node would
    cluster.client().pods().inNamespace(cluster.namespace()).withName("resilient-1").delete();

    CommJob job = jobs.awaitFinished("resilient");
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(job.getStatus().getRestarts()).isEqualTo(1);
    assertThat(jobs.condition(job, "Restarting"))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getReason()).isEqualTo("Restarted");
              assertThat(c.getMessage())
                  .startsWith("restart 1 of 1 after PodDeleted: pod resilient-1");
            });
    assertThat(jobs.pods("resilient"))
        .extracting(pod -> pod.getMetadata().getUid())
        .as("the new run's pods")
        .hasSize(2)
        .doesNotContainAnyElementsOf(firstRun);
    ConfigMap results = jobs.results("resilient");
    BenchmarkReport report = Reports.benchmark(results.getData().get("report.json"));
    assertThat(report.worldSize()).as("ranks that rendezvoused in the new run").isEqualTo(2);
    assertThat(results.getMetadata().getAnnotations())
        .as("rank 0 stamped the run its report is of")
        .containsEntry(ReportRun.ANNOTATION, "1");
  }

  @Test
  void aFinishedJobWithATtlIsDeletedWithEverythingItOwned() {
    cluster.apply(
        JobManifests.withSpecField(
            JobManifests.allReduceSweep("ephemeral", cluster.device(), "trtllm"),
            "ttlSecondsAfterFinished: 5"));

    CommJob job = jobs.awaitFinished("ephemeral");
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);

    await("ephemeral deleted by its TTL")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> jobs.get("ephemeral") == null);
    cluster.awaitNothingLeftOf("ephemeral", Duration.ofMinutes(2));
    assertThat(jobs.objectsOf("ephemeral")).isEmpty();
  }
}
