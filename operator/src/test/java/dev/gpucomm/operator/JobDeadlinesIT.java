package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When a job gives up: spec.timeoutSeconds counts from when all its pods ran, and
 * spec.schedulingTimeoutSeconds bounds how long a pod may stay unschedulable.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class JobDeadlinesIT {
  @Inject KubernetesClient client;
  @KubernetesTestServer KubernetesServer server;

  private TestCluster cluster;
  private JobEvents events;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
    events = new JobEvents(client, cluster.namespace);
  }

  @Test
  void timeQueuedOrPullingImagesDoesNotCountTowardsTheTimeout() {
    cluster.apply(
        """
        metadata: {name: slow-pull}
        spec:
          worldSize: 2
          device: cpu
          timeoutSeconds: 1
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("slow-pull", "slow-pull-0", "slow-pull-1");
    // pending (an image pull, a queue) for longer than the timeout
    await()
        .during(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(4))
        .until(() -> cluster.job("slow-pull").getStatus().getPhase() == Phase.PENDING);

    cluster.kubelet.run("slow-pull-0");
    cluster.kubelet.run("slow-pull-1");

    CommJobStatus failed = cluster.awaitStatus("slow-pull", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Timeout");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo("not finished after 1 s (spec.timeoutSeconds): 2 of 2 pods running");
    assertThat(
            Duration.between(
                Instant.parse(failed.getStartTime()), Instant.parse(failed.getRunningTime())))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    Event timeout = events.await("slow-pull", "Timeout");
    assertThat(timeout.getType()).isEqualTo("Warning");
    assertThat(timeout.getMessage()).contains("not finished after 1 s");
    cluster.awaitPods("slow-pull");
  }

  @Test
  void podsThatNeverAllRunTimeOutAfterTheTimeoutAndTheSchedulingTimeout() {
    cluster.apply(
        """
        metadata: {name: never-runs}
        spec:
          worldSize: 2
          device: cpu
          timeoutSeconds: 1
          schedulingTimeoutSeconds: 1
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    // the pods stay pending: an image that never arrives, say

    CommJobStatus failed = cluster.awaitStatus("never-runs", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Timeout");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "pods not all running 2 s after they were created (spec.timeoutSeconds +"
                + " spec.schedulingTimeoutSeconds): 0 of 2 pods running, 2 pending");
    assertThat(failed.getRunningTime()).isNull();
    cluster.awaitPods("never-runs");
  }

  @Test
  void aJobMayWaitLongerThanTheDefaultForAnAutoscaledNodePool() {
    cluster.apply(
        """
        metadata: {name: autoscaled}
        spec:
          worldSize: 2
          device: cpu
          schedulingTimeoutSeconds: 3600
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("autoscaled", "autoscaled-0", "autoscaled-1");
    // past the operator's default limit of 300 s, within the job's own
    cluster.kubelet.unschedulable(
        "autoscaled-1", Instant.now().minusSeconds(600), "0/3 nodes are available: scaling up");

    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> cluster.job("autoscaled").getStatus().getPhase() == Phase.PENDING);
  }

  @Test
  void aPodWhoseNodeAnAutoscalerIsBringingWaitsForItPastItsSchedulingTimeout() {
    // the API server selects the pods' Events; the test server cannot, so it answers as one would
    List<Event> podEvents = new CopyOnWriteArrayList<>();
    AtomicInteger lists = new AtomicInteger();
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/namespaces/%s/events?fieldSelector=involvedObject.kind%%3DPod&limit=500"
                .formatted(cluster.namespace))
        .andReply(
            200,
            request -> {
              lists.incrementAndGet();
              return new EventListBuilder().withItems(podEvents).build();
            })
        .always();
    cluster.apply(
        """
        metadata: {name: scaling}
        spec:
          worldSize: 2
          device: cpu
          schedulingTimeoutSeconds: 1
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    Pod waiting =
        cluster.awaitPods("scaling", "scaling-0", "scaling-1").stream()
            .filter(pod -> pod.getMetadata().getName().equals("scaling-1"))
            .findFirst()
            .orElseThrow();
    Instant refused = Instant.now().minusSeconds(120);
    podEvents.add(
        AutoscalerEvents.legacy(
            "TriggeredScaleUp",
            AutoscalerEvents.CLUSTER_AUTOSCALER,
            waiting,
            refused.plusSeconds(10),
            refused.plusSeconds(10),
            AutoscalerEvents.SCALE_UP));
    cluster.kubelet.run("scaling-0");
    cluster.kubelet.unschedulable(
        "scaling-1", refused, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");

    // past its scheduling timeout, the operator asks what the autoscaler said, and waits
    CommJobStatus waitingForNode =
        cluster.awaitStatus(
            "scaling",
            s ->
                s.getConditions() != null
                    && condition(s, "Ready").getMessage().contains("waits for the node"));
    assertThat(lists.get()).isPositive();
    assertThat(condition(waitingForNode, "Ready").getMessage())
        .startsWith(
            "1 of 2 pods running, 1 pending; pod scaling-1 (rank 1) waits for the node its"
                + " autoscaler is bringing, until ")
        .endsWith(
            "(cluster-autoscaler's TriggeredScaleUp at %s: %s)"
                .formatted(refused.plusSeconds(10), AutoscalerEvents.SCALE_UP));
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> cluster.job("scaling").getStatus().getPhase() != Phase.FAILED);

    // the node joins and the pod runs on it
    cluster.kubelet.run("scaling-1");
    cluster.awaitStatus(
        "scaling", s -> TestCluster.hasCondition(s, "Ready", "True", "PodsRunning"));
  }

  @Test
  void aJobWithAShortSchedulingTimeoutFailsAsSoonAsItPasses() {
    cluster.apply(
        """
        metadata: {name: impatient}
        spec:
          worldSize: 2
          device: cpu
          schedulingTimeoutSeconds: 2
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("impatient", "impatient-0", "impatient-1");
    cluster.kubelet.unschedulable(
        "impatient-0", Instant.now(), "0/3 nodes are available: 3 Insufficient cpu.");

    CommJobStatus failed = cluster.awaitStatus("impatient", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "pod impatient-0 (rank 0) could not be scheduled within 2 s: 0/3 nodes are available:"
                + " 3 Insufficient cpu.");
  }

  @Test
  void aPodWhoseImageCannotBePulledSaysSoThenFailsTheJobAtTheSchedulingTimeout() {
    cluster.apply(
        """
        metadata: {name: typo}
        spec:
          worldSize: 2
          device: cpu
          schedulingTimeoutSeconds: 3
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("typo", "typo-0", "typo-1");
    cluster.kubelet.run("typo-0");
    cluster.kubelet.waiting(
        "typo-1", Instant.now(), "ErrImagePull", "pull access denied for gpucomm-runtime:typo");

    CommJobStatus waiting =
        cluster.awaitStatus(
            "typo",
            s ->
                s.getConditions() != null
                    && s.getConditions().stream()
                        .anyMatch(
                            c -> c.getType().equals("Ready") && c.getMessage().contains("(")));
    assertThat(condition(waiting, "Ready").getMessage())
        .isEqualTo("1 of 2 pods running, 1 pending (pod typo-1: its image cannot be pulled)");

    CommJobStatus failed = cluster.awaitStatus("typo", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("ContainerNotStarted");
    assertThat(condition(failed, "Failed").getMessage())
        .isEqualTo(
            "pod typo-1 (rank 1) could not start within 3 s of being scheduled"
                + " (spec.schedulingTimeoutSeconds): container gpucomm: its image cannot be pulled"
                + " (ErrImagePull: pull access denied for gpucomm-runtime:typo)");
  }
}
