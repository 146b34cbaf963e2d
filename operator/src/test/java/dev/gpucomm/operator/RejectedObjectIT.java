package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A pod that the API server refuses as invalid (what the validator cannot know, such as requests
 * above limits) fails the job at once with the server's reason, instead of retrying until the job's
 * timeout and failing it as one.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class RejectedObjectIT {
  /** A namespace of this test's own: the refusal below answers every pod created in it. */
  private static final String NAMESPACE = "rejecting";

  private static final String REFUSAL =
      "Pod \"refused-0\" is invalid: spec.nodeSelector: Invalid value: \"gpu pool\": name part"
          + " must consist of alphanumeric characters, '-', '_' or '.'";

  @Inject KubernetesClient client;

  @KubernetesTestServer KubernetesServer server;

  @Test
  void aGangJobWhoseSchedulerIsNotInstalledFailsAsUnschedulableNamingIt() {
    // a cluster without Volcano serves no scheduling.volcano.sh: the API server answers 404
    String namespace = "no-volcano";
    TestCluster cluster =
        refusingCreates(
            namespace,
            "/apis/scheduling.volcano.sh/v1beta1/namespaces/" + namespace + "/podgroups",
            new StatusBuilder()
                .withReason("NotFound")
                .withCode(404)
                .withMessage("the server could not find the requested resource"));

    cluster.apply(
        """
        metadata: {name: gang}
        spec:
          worldSize: 2
          ranksPerPod: 1
          gang: {scheduler: volcano}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);

    CommJobStatus status = cluster.awaitStatus("gang", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo(
            "spec.gang.scheduler volcano: the cluster serves no PodGroup of"
                + " scheduling.volcano.sh/v1beta1; install the scheduler or leave out spec.gang");
    // nothing of a job that failed before it started is made afterwards
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                cluster.pods("gang").isEmpty()
                    && cluster.configMap("gang-spec") == null
                    && client.services().inNamespace(namespace).withName("gang").get() == null);
  }

  @Test
  void aPodTheApiServerRefusesAsInvalidFailsTheJobWithTheServersReason() {
    TestCluster cluster =
        refusingCreates(
            NAMESPACE,
            "/api/v1/namespaces/" + NAMESPACE + "/pods",
            new StatusBuilder()
                .withReason("Invalid")
                .withCode(ApiRejection.UNPROCESSABLE)
                .withMessage(REFUSAL)
                // as the API server says of an invalid pod
                .withNewDetails()
                .withKind("pods")
                .withName("refused-0")
                .endDetails());

    cluster.apply(
        """
        metadata: {name: refused}
        spec:
          worldSize: 2
          ranksPerPod: 1
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
          template:
            spec:
              nodeSelector: {"gpu pool": h200}
        """);

    CommJobStatus status = cluster.awaitStatus("refused", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("RejectedByApiServer");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo("the API server refused a pod made from the spec: " + REFUSAL);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(() -> cluster.pods("refused").isEmpty());
    CommJobStatus later = cluster.job("refused").getStatus();
    assertThat(later.getPhase()).isEqualTo(Phase.FAILED);
    assertThat(condition(later, "Ready").getReason()).isNotEqualTo("ReconcileError");
  }

  @Test
  void aPodThePodSecurityLevelForbidsFailsTheJobWhileAQuotasRefusalIsWaitedOut() {
    String denial =
        "pods \"host-net-0\" is forbidden: violates PodSecurity \"baseline:latest\": host"
            + " namespaces (hostNetwork=true)";
    TestCluster forbidding =
        refusingCreates(
            "baseline-only",
            "/api/v1/namespaces/baseline-only/pods",
            forbiddenPod("host-net-0", denial));
    TestCluster overQuota =
        refusingCreates(
            "over-quota",
            "/api/v1/namespaces/over-quota/pods",
            forbiddenPod(
                "queued-0",
                "pods \"queued-0\" is forbidden: exceeded quota: gpus, requested:"
                    + " requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=8, limited:"
                    + " requests.nvidia.com/gpu=8"));
    String job =
        """
        metadata: {name: %s}
        spec:
          worldSize: 2
          ranksPerPod: 1
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """;

    forbidding.apply(job.formatted("host-net"));
    overQuota.apply(job.formatted("queued"));

    CommJobStatus status = forbidding.awaitStatus("host-net", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("RejectedByApiServer");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo("the API server refused a pod made from the spec: " + denial);
    // freed quota lets the same pods in later: that job keeps trying
    overQuota.awaitStatus(
        "queued",
        s ->
            s.getConditions() != null
                && s.getConditions().stream()
                    .anyMatch(
                        c ->
                            "Ready".equals(c.getType()) && "ReconcileError".equals(c.getReason())));
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(() -> overQuota.job("queued").getStatus().getPhase() != Phase.FAILED);
  }

  @Test
  void aPodTheQuotaCannotCountFailsTheJobRatherThanWaitingForFreedQuota() {
    String denial =
        "pods \"unlimited-0\" is forbidden: failed quota: compute: must specify limits.cpu for:"
            + " gpucomm";
    TestCluster quotaNeedingLimits =
        refusingCreates(
            "limits-required",
            "/api/v1/namespaces/limits-required/pods",
            forbiddenPod("unlimited-0", denial));

    quotaNeedingLimits.apply(
        """
        metadata: {name: unlimited}
        spec:
          worldSize: 2
          ranksPerPod: 1
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);

    CommJobStatus status =
        quotaNeedingLimits.awaitStatus("unlimited", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("RejectedByApiServer");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo("the API server refused a pod made from the spec: " + denial);
  }

  @Test
  void anObjectOfAGeneratedNameThatNoCommJobControlsFailsTheJobInsteadOfHoldingItForever() {
    TestCluster cluster =
        new TestCluster(client.adapt(NamespacedKubernetesClient.class).inNamespace("taken-names"));
    // made by hand before the job: the job's spec ConfigMap would take its name
    client
        .configMaps()
        .inNamespace("taken-names")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("taken-spec")
                .endMetadata()
                .addToData("notes", "mine")
                .build())
        .create();

    cluster.apply(
        """
        metadata: {name: taken}
        spec:
          worldSize: 2
          ranksPerPod: 1
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);

    CommJobStatus status = cluster.awaitStatus("taken", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("RejectedByApiServer");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo(
            "ConfigMap taken-spec exists and is not this job's (controlled by no object); delete it"
                + " or give the job another name");
    assertThat(cluster.configMap("taken-spec").getData()).containsEntry("notes", "mine");
    assertThat(cluster.pods("taken")).isEmpty();
  }

  /**
   * The cluster of {@code namespace}, a namespace of the calling test's own, whose API server
   * answers every create at {@code path} with {@code refusal}.
   */
  private TestCluster refusingCreates(String namespace, String path, StatusBuilder refusal) {
    Status status = refusal.withStatus("Failure").build();
    server.expect().post().withPath(path).andReturn(status.getCode(), status).always();
    return new TestCluster(client.adapt(NamespacedKubernetesClient.class).inNamespace(namespace));
  }

  /** The API server's refusal of the pod {@code name} as forbidden (HTTP 403). */
  private static StatusBuilder forbiddenPod(String name, String message) {
    return new StatusBuilder()
        .withReason("Forbidden")
        .withCode(ApiRejection.FORBIDDEN)
        .withMessage(message)
        .withNewDetails()
        .withKind("pods")
        .withName(name)
        .endDetails();
  }
}
