package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that stops answering: its pod shows Running until the node controller marks it NotReady,
 * while the peers' ranks fail within seconds on its silence. The job waits for the lost pod's
 * story, and restarts as a disruption.
 */
@QuarkusTest
@TestProfile(NodeLossIT.WaitingForLostNodes.class)
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class NodeLossIT {
  /** The operator as the chart runs it, with a short wait for a lost node. */
  public static final class WaitingForLostNodes implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "gpucomm.operator.node-loss-grace", "8s",
          "gpucomm.operator.lost-pod-removal-delay", "1s");
    }
  }

  @Inject KubernetesClient client;

  @KubernetesTestServer KubernetesServer server;

  @Inject MeterRegistry registry;

  private TestCluster cluster;
  private JobEvents events;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
    events = new JobEvents(client, cluster.namespace);
  }

  @Test
  void aNodeLostUnderARunningJobRestartsItAsADisruptionNotItsPeersFailure() {
    runningTwoPodJob("lost-node", "failurePolicy: {maxRestarts: 1}");

    // lost-node-1's node stops answering: its peer's rank fails on its silence, its own pod
    // still shows Running
    cluster.kubelet.failAt(
        "lost-node-0", 1, "rank 0: rendezvous: rank 1 stopped answering", Instant.now());
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> cluster.job("lost-node").getStatus().getPhase() == Phase.RUNNING);
    assertThat(condition(cluster.job("lost-node").getStatus(), "Ready"))
        .satisfies(
            ready -> {
              assertThat(ready.getReason()).isEqualTo("PodsFailing");
              assertThat(ready.getMessage())
                  .isEqualTo(
                      "1 of 2 pods running, 1 failed; judged once the pods still running end or"
                          + " show their node lost, at the latest runtime.nodeLossGrace after the"
                          + " first failure");
            });

    // the node controller marks it NotReady after its grace period
    cluster.kubelet.nodeLost("lost-node-1");

    // a disruption, restarted under the policy's default restartOn, not the peer's RankFailed
    CommJobStatus restarted =
        cluster.awaitStatus("lost-node", s -> s.getRestarts() != null && s.getRestarts() == 1);
    assertThat(condition(restarted, "Restarting").getMessage())
        .startsWith(
            "restart 1 of 1 after NodeLost: pod lost-node-1 (rank 1) is on a node that stopped"
                + " answering (NotReady since");
  }

  @Test
  void aRestartRemovesTheDeletedPodOfALostNodeWhoseNameItNeeds() throws InterruptedException {
    runningTwoPodJob("gone-node", "failurePolicy: {maxRestarts: 1}");
    double removedBefore = lostPodsRemoved();
    // a deleted pod stays until its kubelet confirms, which a lost node's never does (the mock API
    // server keeps a pod for a finalizer only)
    Pod lost = cluster.setFinalizers("gone-node-1", List.of(KUBELET_NEVER_CONFIRMS));
    String lostUid = lost.getMetadata().getUid();
    bindToNodeWhoseKubeletStoppedPosting("gone-node-1", "node-b");
    cluster.kubelet.nodeLost("gone-node-1");
    cluster.kubelet.failAt(
        "gone-node-0", 1, "rank 0: rendezvous: rank 1 stopped answering", Instant.now());
    cluster.awaitStatus("gone-node", s -> s.getRestarts() != null && s.getRestarts() == 1);

    Event removed = events.await("gone-node", "LostPodRemoved");
    assertThat(lostPodsRemoved())
        .as("gpucomm_lost_pods_removed_total")
        .isEqualTo(removedBefore + 1);

    assertThat(removed.getType()).isEqualTo("Warning");
    assertThat(removed.getMessage())
        .startsWith("deleted pod gone-node-1 with no grace period: it was deleted at")
        .endsWith(", and node node-b has stopped posting status");
    DeleteOptions forced =
        forcedDeletionOf("/api/v1/namespaces/" + cluster.namespace + "/pods/gone-node-1");
    assertThat(forced.getPreconditions().getUid()).isEqualTo(lostUid);
    assertThat(forced.getPreconditions().getResourceVersion()).isNotBlank();
    // the API server takes a deletion with no grace period at once
    cluster.setFinalizers("gone-node-1", List.of());
    List<Pod> next = cluster.awaitPods("gone-node", "gone-node-0", "gone-node-1");
    assertThat(next)
        .extracting(pod -> pod.getMetadata().getUid())
        .as("the new run's pods")
        .doesNotContain(lostUid);
    client.nodes().withName("node-b").delete();
  }

  @Test
  void aFinishedJobsLostPodIsRemovedWhenItFallsDueWithoutAnotherEvent() {
    runningTwoPodJob("ended-lost", "");
    double removedBefore = lostPodsRemoved();
    cluster.setFinalizers("ended-lost-1", List.of(KUBELET_NEVER_CONFIRMS));
    bindToNodeWhoseKubeletStoppedPosting("ended-lost-1", "node-c");
    cluster.kubelet.nodeLost("ended-lost-1");
    cluster.kubelet.failAt(
        "ended-lost-0", 1, "rank 0: rendezvous: rank 1 stopped answering", Instant.now());

    // the failure ends the job, whose clean-up deletes the lost pod: the last event it sends
    CommJobStatus failed = cluster.awaitStatus("ended-lost", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("NodeLost");

    Event removed = events.await("ended-lost", "LostPodRemoved");
    assertThat(removed.getMessage()).startsWith("deleted pod ended-lost-1 with no grace period");
    assertThat(lostPodsRemoved()).isEqualTo(removedBefore + 1);
    client.nodes().withName("node-c").delete();
  }

  @Test
  void peersThatFailedBesideAPodStillReadyAreJudgedAfterTheWait() {
    runningTwoPodJob("hung-peer", "");
    Instant failedAt = Instant.now();

    cluster.kubelet.failAt(
        "hung-peer-0", 1, "rank 0: NCCL error: unhandled system error", failedAt);

    CommJobStatus failed = cluster.awaitStatus("hung-peer", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("RankFailed");
    assertThat(Instant.parse(condition(failed, "Failed").getLastTransitionTime()))
        .as("judged once the wait for a lost node was over")
        .isAfterOrEqualTo(failedAt.plusSeconds(6));
  }

  /**
   * Applies a CPU job of two pods of one rank, with the spec line {@code policy} (may be empty),
   * and has the fake kubelet run both pods until the job records its running time.
   */
  private void runningTwoPodJob(String name, String policy) {
    cluster.apply(
        """
        metadata: {name: %s}
        spec:
          worldSize: 2
          device: cpu
          %s
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """
            .formatted(name, policy));
    cluster.awaitPods(name, name + "-0", name + "-1");
    cluster.kubelet.run(name + "-0");
    cluster.kubelet.run(name + "-1");
    cluster.awaitStatus(name, s -> s.getRunningTime() != null);
  }

  /** gpucomm_lost_pods_removed_total so far (the operator's, shared by this class's tests). */
  private double lostPodsRemoved() {
    Counter counter = registry.find("gpucomm.lost.pods.removed").counter();
    return counter == null ? 0 : counter.count();
  }

  /** The finalizer that plays a lost node's kubelet, which never confirms a pod's end. */
  private static final String KUBELET_NEVER_CONFIRMS = "test.gpucomm.dev/kubelet-never-confirms";

  /** The DELETE with no grace period of {@code podPath} that the server received, its options. */
  private DeleteOptions forcedDeletionOf(String podPath) throws InterruptedException {
    for (RecordedRequest request =
            server.getKubernetesMockServer().takeRequest(100, TimeUnit.MILLISECONDS);
        request != null;
        request = server.getKubernetesMockServer().takeRequest(100, TimeUnit.MILLISECONDS)) {
      if ("DELETE".equals(request.getMethod()) && request.getPath().equals(podPath)) {
        DeleteOptions options =
            client
                .getKubernetesSerialization()
                .unmarshal(request.getUtf8Body(), DeleteOptions.class);
        if (options != null && Long.valueOf(0).equals(options.getGracePeriodSeconds())) {
          return options;
        }
      }
    }
    throw new AssertionError("no DELETE with gracePeriodSeconds 0 of " + podPath);
  }

  /**
   * Plays the scheduler, which bound the pod to {@code node}, and the node controller, which marked
   * that node's Ready Unknown when its kubelet stopped posting status.
   */
  private void bindToNodeWhoseKubeletStoppedPosting(String pod, String node) {
    client
        .pods()
        .inNamespace(cluster.namespace)
        .withName(pod)
        .edit(
            p -> {
              p.getSpec().setNodeName(node);
              return p;
            });
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("Unknown")
                .withReason("NodeStatusUnknown")
                .withMessage("Kubelet stopped posting node status.")
                .endCondition()
                .endStatus()
                .build())
        .create();
  }
}
