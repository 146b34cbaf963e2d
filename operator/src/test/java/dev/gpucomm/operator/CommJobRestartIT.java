package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static dev.gpucomm.operator.TestCluster.condition;
import static dev.gpucomm.operator.TestCluster.hasCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * spec.failurePolicy as JobSet users know it: a run that fails in a way the policy names is started
 * afresh, whole, until its restarts are spent.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class CommJobRestartIT {
  @Inject KubernetesClient client;
  @Inject MeterRegistry registry;

  private TestCluster cluster;
  private JobEvents events;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
    events = new JobEvents(client, cluster.namespace);
  }

  @Test
  void aPodDeletedMidRunRestartsTheWholeJobWhoseNewRunSucceeds() {
    double restartsBefore = restartsCounted("Disruption");
    startRunning("drained", "failurePolicy: {maxRestarts: 1}");
    assertThat(cluster.pods("drained"))
        .extracting(pod -> pod.getMetadata().getLabels().get(JobNames.RESTART_ATTEMPT_LABEL))
        .containsOnly("0");
    List<String> firstRun = stopSlowly("drained");
    String firstSpec = cluster.configMap("drained-spec").getMetadata().getUid();

    client.pods().inNamespace(cluster.namespace).withName("drained-1").delete();

    CommJobStatus restarting =
        cluster.awaitStatus("drained", s -> hasCondition(s, "Restarting", "True", "Disruption"));
    assertThat(restarting.getRestarts()).isEqualTo(1);
    assertThat(restarting.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(condition(restarting, "Restarting").getMessage())
        .startsWith("restart 1 of 1 after PodDeleted: pod drained-1 (rank 1) was deleted");
    assertThat(condition(restarting, "Failed").getStatus()).isEqualTo("False");
    assertThat(condition(restarting, "Ready").getReason()).isEqualTo("Restarting");
    await("the failed run's other pod deleted too")
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                cluster.pods("drained").stream()
                    .allMatch(pod -> pod.getMetadata().getDeletionTimestamp() != null));
    assertThat(cluster.job("drained").getStatus().getRestarts())
        .as("counted once, however often the job is reconciled while its pods go")
        .isEqualTo(1);
    release("drained");

    List<Pod> secondRun = awaitNewRun("drained", firstRun);
    assertThat(secondRun)
        .extracting(pod -> pod.getMetadata().getLabels().get(JobNames.RESTART_ATTEMPT_LABEL))
        .as("which run the pods belong to, as JobSet labels them")
        .containsOnly("1");
    assertThat(secondRun)
        .extracting(pod -> runIdOf(pod))
        .as("the run whose ranks the new store serves: the failed run's cannot join it")
        .containsOnly(cluster.job("drained").getMetadata().getUid() + "/1");
    assertThat(cluster.configMap("drained-spec").getMetadata().getUid())
        .as("the new run has a spec ConfigMap of its own")
        .isNotEqualTo(firstSpec);
    CommJobStatus restarted =
        cluster.awaitStatus("drained", s -> hasCondition(s, "Restarting", "False", "Restarted"));
    assertThat(restarted.getRunningTime()).as("the timeout counts from the new run").isNull();

    secondRun.forEach(pod -> cluster.kubelet.run(pod.getMetadata().getName()));
    cluster.awaitStatus("drained", s -> s.getRunningTime() != null);
    secondRun.forEach(pod -> cluster.kubelet.succeed(pod.getMetadata().getName()));

    CommJobStatus succeeded = cluster.awaitStatus("drained", s -> s.getPhase() == Phase.SUCCEEDED);
    assertThat(succeeded.getRestarts()).isEqualTo(1);
    assertThat(restartsCounted("Disruption") - restartsBefore)
        .as("gpucomm_restarts_total{cause=Disruption}")
        .isEqualTo(1.0);
    assertThat(condition(succeeded, "Restarting").getReason()).isEqualTo("Restarted");
    events.await("drained", "Restarted");
    assertThat(events.of("drained"))
        .filteredOn(e -> "Restarting".equals(e.getReason()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getMessage())
                  .startsWith("Restarting=True: restart 1 of 1 after PodDeleted: pod drained-1");
            });
  }

  @Test
  void aFailureAfterTheLastRestartFailsTheJobSayingTheRestartsAreSpent() {
    startRunning("flaky", "failurePolicy: {maxRestarts: 1, restartOn: [RankFailed]}");
    List<String> firstRun = stopSlowly("flaky");

    cluster.kubelet.fail("flaky-1", 1, "rank 1 failed: NCCL error: remote process exited");

    cluster.awaitStatus("flaky", s -> hasCondition(s, "Restarting", "True", "RankFailed"));
    release("flaky");
    List<Pod> secondRun = awaitNewRun("flaky", firstRun);
    secondRun.forEach(pod -> cluster.kubelet.run(pod.getMetadata().getName()));
    cluster.awaitStatus("flaky", s -> s.getRunningTime() != null);

    cluster.kubelet.fail("flaky-0", 1, "rank 0 failed: NCCL error: remote process exited");

    CommJobStatus failed = cluster.awaitStatus("flaky", s -> s.getPhase() == Phase.FAILED);
    assertThat(failed.getRestarts()).isEqualTo(1);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("RankFailed");
    assertThat(condition(failed, "Failed").getMessage())
        .contains("pod flaky-0 (rank 0) failed")
        .endsWith("; no restart left (1 of spec.failurePolicy.maxRestarts 1 made)");
  }

  @Test
  void aFailedRunsReportIsForgottenSoThatItNeverPassesForTheNewRuns() {
    startRunning("reported", "failurePolicy: {maxRestarts: 1}");
    List<String> firstRun = stopSlowly("reported");
    cluster.publishReport("reported", sweep("reported", 30.0));
    cluster.awaitStatus("reported", s -> s.getSummary() != null);

    client.pods().inNamespace(cluster.namespace).withName("reported-1").delete();

    cluster.awaitStatus("reported", s -> hasCondition(s, "Restarting", "True", "Disruption"));
    await("the failed run's report emptied")
        .atMost(TestCluster.PATIENCE)
        .until(
            () -> {
              var data = cluster.configMap("reported-results").getData();
              return data == null || data.isEmpty();
            });
    CommJobStatus restarting = cluster.awaitStatus("reported", s -> s.getSummary() == null);
    assertThat(restarting.getBest()).isNull();
    release("reported");
    awaitNewRun("reported", firstRun);
    cluster.awaitStatus("reported", s -> hasCondition(s, "Restarting", "False", "Restarted"));

    // the failed run's rank 0, still in its grace period, publishes late
    cluster.publishReport("reported", sweep("reported", 30.0), 0);
    await("the failed run's late report is not the new run's")
        .during(Duration.ofSeconds(2))
        .atMost(TestCluster.PATIENCE)
        .until(() -> cluster.job("reported").getStatus().getSummary() == null);

    cluster.publishReport("reported", sweep("reported", 31.0), 1);
    CommJobStatus ofTheNewRun = cluster.awaitStatus("reported", s -> s.getSummary() != null);
    assertThat(ofTheNewRun.getSummary().getFirst().getLatencyMicros()).isEqualTo(31.0);
  }

  private static String sweep(String job, double ringMicros) {
    return TestReports.allreduce(job)
        .size(524288, null, "ring", timing("ring", ringMicros, null, ringMicros - 1))
        .json();
  }

  @Test
  void aJobSuspendedMidRestartSaysNoNewRunBegan() {
    startRunning("queued", "failurePolicy: {maxRestarts: 2}");
    stopSlowly("queued");
    client.pods().inNamespace(cluster.namespace).withName("queued-0").delete();
    cluster.awaitStatus("queued", s -> hasCondition(s, "Restarting", "True", "Disruption"));

    cluster.edit("queued", job -> job.getSpec().setSuspend(true));

    CommJobStatus suspended =
        cluster.awaitStatus("queued", s -> hasCondition(s, "Restarting", "False", "NotRestarted"));
    assertThat(condition(suspended, "Restarting").getMessage())
        .endsWith("; the job was suspended before its new run began");
    assertThat(condition(suspended, "Suspended").getStatus()).isEqualTo("True");
    assertThat(suspended.getRestarts()).isEqualTo(1);
    release("queued");
  }

  @Test
  void aRankFailureIsNotRestartedUnderTheDefaultPolicyOfDisruptionsOnly() {
    startRunning("strict", "failurePolicy: {maxRestarts: 3}");

    cluster.kubelet.fail("strict-0", 1, "rank 0 failed: validation: 12 of 4096 elements wrong");

    CommJobStatus failed = cluster.awaitStatus("strict", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("RankFailed");
    assertThat(failed.getRestarts()).isNull();
    assertThat(failed.getConditions()).extracting("type").doesNotContain("Restarting");
  }

  /** Creates a two-pod job with {@code policy} in its spec and runs both pods. */
  private void startRunning(String name, String policy) {
    cluster.apply(
        """
        metadata: {name: NAME}
        spec:
          worldSize: 2
          device: cpu
          POLICY
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """
            .replace("NAME", name)
            .replace("POLICY", policy));
    cluster.awaitPods(name, name + "-0", name + "-1");
    cluster.kubelet.run(name + "-0");
    cluster.kubelet.run(name + "-1");
    cluster.awaitStatus(name, s -> s.getRunningTime() != null);
  }

  /** The restarts the operator's metrics have counted for {@code cause}, across jobs. */
  private double restartsCounted(String cause) {
    Counter counter = registry.find("gpucomm.restarts").tag("cause", cause).counter();
    return counter == null ? 0 : counter.count();
  }

  /**
   * Holds the job's pods in Terminating once deleted, as their grace period does on a real node, so
   * that the restart is seen waiting for them; returns their UIDs.
   */
  private List<String> stopSlowly(String job) {
    return cluster.pods(job).stream()
        .map(pod -> cluster.setFinalizers(pod.getMetadata().getName(), List.of(DRAIN)))
        .map(pod -> pod.getMetadata().getUid())
        .toList();
  }

  /** Lets the job's held pods go. */
  private void release(String job) {
    cluster.pods(job).forEach(pod -> cluster.setFinalizers(pod.getMetadata().getName(), List.of()));
  }

  private static final String DRAIN = "example.com/drain";

  /** Waits for the job's two pods to be new ones, none of {@code oldUids}; returns them. */
  private List<Pod> awaitNewRun(String job, List<String> oldUids) {
    await()
        .atMost(TestCluster.PATIENCE)
        .untilAsserted(
            () ->
                assertThat(cluster.pods(job))
                    .extracting(pod -> pod.getMetadata().getUid())
                    .hasSize(2)
                    .doesNotContainAnyElementsOf(oldUids));
    return cluster.awaitPods(job, job + "-0", job + "-1");
  }

  private static String runIdOf(Pod pod) {
    return pod.getSpec().getContainers().getFirst().getEnv().stream()
        .filter(variable -> variable.getName().equals(PodTemplateFactory.ENV_RUN_ID))
        .findFirst()
        .orElseThrow()
        .getValue();
  }
}
