package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static dev.gpucomm.operator.TestCluster.condition;
import static dev.gpucomm.operator.TestCluster.hasCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** spec.suspend as Kueue uses it: a suspended job has no pods; unsuspending starts it. */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class CommJobSuspendIT {
  @Inject KubernetesClient client;

  @KubernetesTestServer KubernetesServer server;

  /** DELETEs of pods seen, by job: the server's request log is read once. */
  private final Map<String, Integer> recordedPodDeletes = new java.util.HashMap<>();

  private TestCluster cluster;
  private JobEvents events;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
    events = new JobEvents(client, cluster.namespace);
  }

  @Test
  void aJobCreatedSuspendedWaitsWithoutPodsAndStartsWhereTheQueuePlacedIt() {
    cluster.apply(
        """
        metadata: {name: queued-run}
        spec:
          worldSize: 2
          device: cpu
          suspend: true
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);

    CommJobStatus suspended =
        cluster.awaitStatus(
            "queued-run", s -> hasCondition(s, "Suspended", "True", "JobSuspended"));
    assertThat(suspended.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(suspended.getStartTime()).isNull();
    assertThat(condition(suspended, "Ready").getReason()).isEqualTo("JobSuspended");
    assertThat(cluster.pods("queued-run")).isEmpty();
    assertThat(cluster.configMap("queued-run-spec")).isNull();

    // Kueue admits the job: it sets the flavor's node selector and tolerations, then unsuspends
    cluster.edit(
        "queued-run",
        job -> {
          PodSpec podSpec = new PodSpec();
          podSpec.setNodeSelector(Map.of("cloud.example/flavor", "h100-spot"));
          Toleration spot = new Toleration();
          spot.setKey("spot");
          spot.setOperator("Exists");
          podSpec.setTolerations(List.of(spot));
          PodTemplateSpec template = new PodTemplateSpec();
          template.setSpec(podSpec);
          job.getSpec().setTemplate(template);
          job.getSpec().setSuspend(false);
        });

    List<Pod> pods = cluster.awaitPods("queued-run", "queued-run-0", "queued-run-1");
    assertThat(pods)
        .allSatisfy(
            pod -> {
              assertThat(pod.getSpec().getNodeSelector())
                  .containsEntry("cloud.example/flavor", "h100-spot");
              assertThat(pod.getSpec().getTolerations())
                  .extracting("key", "operator")
                  .contains(tuple("spot", "Exists"));
            });
    CommJobStatus resumed =
        cluster.awaitStatus("queued-run", s -> hasCondition(s, "Suspended", "False", "JobResumed"));
    assertThat(resumed.getStartTime()).isNotNull();
    assertThat(resumed.getConditions()).extracting("type").doesNotContain("SpecChanged");
    events.await("queued-run", "JobResumed");
    assertThat(events.reasons("queued-run")).contains("JobSuspended", "PodsCreated");
  }

  @Test
  void suspendingARunningJobDeletesItsPodsWithoutFailingItAndResumingStartsItAfresh() {
    cluster.apply(
        """
        metadata: {name: preempted}
        spec:
          worldSize: 2
          device: cpu
          timeoutSeconds: 3
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("preempted", "preempted-0", "preempted-1");
    cluster.kubelet.run("preempted-0");
    cluster.kubelet.run("preempted-1");
    cluster.awaitStatus("preempted", s -> s.getRunningTime() != null);

    cluster.publishReport(
        "preempted",
        TestReports.allreduce("preempted")
            .size(524288, null, "ring", timing("ring", 30.0, null, 29.0))
            .json(),
        0);
    cluster.awaitStatus("preempted", s -> s.getSummary() != null);

    // Kueue evicts the job: it suspends it and, in the same update, takes its placement back
    cluster.edit(
        "preempted",
        job -> {
          PodSpec podSpec = new PodSpec();
          podSpec.setNodeSelector(Map.of("cloud.example/flavor", "h100-spot"));
          PodTemplateSpec template = new PodTemplateSpec();
          template.setSpec(podSpec);
          job.getSpec().setTemplate(template);
          job.getSpec().setSuspend(true);
        });

    cluster.awaitPods("preempted");
    CommJobStatus suspended =
        cluster.awaitStatus("preempted", s -> hasCondition(s, "Suspended", "True", "JobSuspended"));
    assertThat(suspended.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(suspended.getStartTime()).isNull();
    assertThat(suspended.getRunningTime()).isNull();
    assertThat(condition(suspended, "Failed").getStatus()).isEqualTo("False");
    await().atMost(TestCluster.PATIENCE).until(() -> cluster.configMap("preempted-spec") == null);
    ConfigMap results = cluster.configMap("preempted-results");
    assertThat(results.getData()).as("the suspended run's report, not the resumed run's").isEmpty();
    assertThat(results.getMetadata().getAnnotations()).doesNotContainKey(ReportRun.ANNOTATION);
    assertThat(cluster.job("preempted").getStatus().getSummary()).isNull();
    assertThat(cluster.job("preempted").getStatus().getConditions())
        .as("an eviction's placement is no edit of a running job's spec")
        .noneMatch(c -> "SpecChanged".equals(c.getType()) && "True".equals(c.getStatus()));

    cluster.edit("preempted", job -> job.getSpec().setSuspend(false));

    cluster.awaitPods("preempted", "preempted-0", "preempted-1");
    CommJobStatus resumed =
        cluster.awaitStatus("preempted", s -> hasCondition(s, "Suspended", "False", "JobResumed"));
    assertThat(resumed.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(resumed.getRunningTime())
        .as("the timeout counts again from the new pods' running")
        .isNull();
    assertThat(condition(resumed, "Failed").getStatus()).isEqualTo("False");
  }

  @Test
  void aSuspendedJobsPodsThatStillStopAreDeletedOnceNotOnEveryReconciliation() throws Exception {
    cluster.apply(
        """
        metadata: {name: slow-drain}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("slow-drain", "slow-drain-0", "slow-drain-1");
    for (String pod : List.of("slow-drain-0", "slow-drain-1")) {
      cluster.setFinalizers(pod, List.of("example.com/drain"));
    }
    cluster.edit("slow-drain", job -> job.getSpec().setSuspend(true));
    cluster.awaitStatus("slow-drain", s -> hasCondition(s, "Suspended", "True", "JobSuspended"));
    await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                cluster.pods("slow-drain").stream()
                    .allMatch(pod -> pod.getMetadata().getDeletionTimestamp() != null));
    int deletesWhenSuspended = podDeletes("slow-drain");

    // reconciliations while the pods drain: each edit of the job brings one
    for (int edit = 0; edit < 3; edit++) {
      String mark = "edit-" + edit;
      cluster.edit("slow-drain", job -> job.getMetadata().setAnnotations(Map.of("mark", mark)));
      Thread.sleep(300);
    }

    assertThat(deletesWhenSuspended).isEqualTo(2);
    assertThat(podDeletes("slow-drain")).as("no pod deleted again").isEqualTo(2);
    for (String pod : List.of("slow-drain-0", "slow-drain-1")) {
      cluster.setFinalizers(pod, List.of());
    }
  }

  /** How many DELETEs of the job's pods the API server has been asked for so far. */
  private int podDeletes(String job) throws InterruptedException {
    String pods = "/api/v1/namespaces/%s/pods/%s-".formatted(cluster.namespace, job);
    for (RecordedRequest request =
            server.getKubernetesMockServer().takeRequest(50, TimeUnit.MILLISECONDS);
        request != null;
        request = server.getKubernetesMockServer().takeRequest(50, TimeUnit.MILLISECONDS)) {
      if ("DELETE".equals(request.getMethod()) && request.getPath().startsWith(pods)) {
        recordedPodDeletes.merge(job, 1, Integer::sum);
      }
    }
    return recordedPodDeletes.getOrDefault(job, 0);
  }

  @Test
  void aJobResumedWhileItsSuspendedPodsStillStopWaitsForThemWithoutFailing() {
    List<String> oldUids = resumeWhileThePodsStillStop("slow-stop", "");

    CommJobStatus waiting =
        cluster.awaitStatus("slow-stop", s -> hasCondition(s, "Ready", "False", "PodsTerminating"));
    assertThat(waiting.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(waiting.getStartTime()).as("taken from no old pod").isNull();
    assertThat(condition(waiting, "Ready").getMessage())
        .isEqualTo("waiting for 2 pods of the job's earlier run to terminate");
    // the suspended run's rank 0 publishes in its grace period, with the resumed run's stamp
    cluster.publishReport(
        "slow-stop",
        TestReports.allreduce("slow-stop")
            .size(524288, null, "ring", timing("ring", 30.0, null, 29.0))
            .json(),
        0);

    for (String pod : List.of("slow-stop-0", "slow-stop-1")) {
      cluster.setFinalizers(pod, List.of());
    }

    await()
        .atMost(TestCluster.PATIENCE)
        .untilAsserted(
            () ->
                assertThat(cluster.pods("slow-stop"))
                    .extracting(p -> p.getMetadata().getUid())
                    .hasSize(2)
                    .doesNotContainAnyElementsOf(oldUids));
    CommJobStatus resumed = cluster.job("slow-stop").getStatus();
    assertThat(condition(resumed, "Failed").getStatus()).isEqualTo("False");
    assertThat(cluster.configMap("slow-stop-results").getData())
        .as("the suspended run's late report is not the resumed run's")
        .isEmpty();
    assertThat(resumed.getSummary()).isNull();
  }

  @Test
  void aPodOfTheEarlierRunThatNeverStopsFailsTheJobAfterTheSchedulingTimeout() {
    resumeWhileThePodsStillStop("stuck-stop", "\n  schedulingTimeoutSeconds: 2");

    CommJobStatus failed = cluster.awaitStatus("stuck-stop", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(failed, "Failed").getMessage())
        .matches(
            "pod stuck-stop-[01] of the job's earlier run has been terminating for more than 2 s"
                + " \\(its node may be unreachable\\); the job's new pods need its name");
    for (String pod : List.of("stuck-stop-0", "stuck-stop-1")) {
      cluster.setFinalizers(pod, List.of());
    }
  }

  /**
   * Runs a two-pod job, holds its pods in Terminating with a finalizer (as a grace period does on a
   * real node), suspends it and resumes it; returns the held pods' UIDs.
   */
  private List<String> resumeWhileThePodsStillStop(String name, String extraSpec) {
    cluster.apply(
        """
        metadata: {name: NAME}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}EXTRA
        """
            .replace("NAME", name)
            .replace("EXTRA", extraSpec));
    cluster.awaitPods(name, name + "-0", name + "-1");
    cluster.kubelet.run(name + "-0");
    cluster.kubelet.run(name + "-1");
    cluster.awaitStatus(name, s -> s.getRunningTime() != null);
    List<String> uids = new java.util.ArrayList<>();
    for (String pod : List.of(name + "-0", name + "-1")) {
      uids.add(cluster.setFinalizers(pod, List.of("example.com/drain")).getMetadata().getUid());
    }

    cluster.edit(name, job -> job.getSpec().setSuspend(true));
    cluster.awaitStatus(name, s -> hasCondition(s, "Suspended", "True", "JobSuspended"));
    await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                client
                        .pods()
                        .inNamespace(cluster.namespace)
                        .withName(name + "-0")
                        .get()
                        .getMetadata()
                        .getDeletionTimestamp()
                    != null);
    cluster.edit(name, job -> job.getSpec().setSuspend(false));
    return uids;
  }
}
