package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * spec.gang: a PodGroup with minMember = the pod count, for Volcano or the scheduler-plugins
 * coscheduling plugin, and pods that name the gang scheduler and their group.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class GangSchedulingIT {
  private static final ResourceDefinitionContext VOLCANO =
      new ResourceDefinitionContext.Builder()
          .withGroup("scheduling.volcano.sh")
          .withVersion("v1beta1")
          .withKind("PodGroup")
          .withPlural("podgroups")
          .withNamespaced(true)
          .build();
  private static final ResourceDefinitionContext COSCHEDULING =
      new ResourceDefinitionContext.Builder()
          .withGroup("scheduling.x-k8s.io")
          .withVersion("v1alpha1")
          .withKind("PodGroup")
          .withPlural("podgroups")
          .withNamespaced(true)
          .build();

  @Inject KubernetesClient client;

  @KubernetesTestServer KubernetesServer server;

  private TestCluster cluster;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
  }

  @Test
  void aVolcanoGangJobGetsAPodGroupOfAllItsPodsAndPodsVolcanoSchedules() {
    cluster.apply(
        """
        metadata: {name: gang-volcano}
        spec:
          worldSize: 8
          ranksPerPod: 4
          gang: {scheduler: volcano, queue: gpu-benchmarks}
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);

    List<Pod> pods = cluster.awaitPods("gang-volcano", "gang-volcano-0", "gang-volcano-1");
    GenericKubernetesResource podGroup = awaitPodGroup(VOLCANO, "gang-volcano");
    assertThat(podGroup.getApiVersion()).isEqualTo("scheduling.volcano.sh/v1beta1");
    assertThat(spec(podGroup))
        .containsEntry("minMember", 2)
        .containsEntry("queue", "gpu-benchmarks");
    // the queue admits the gang only when all it asks for fits: two pods of four GPUs each
    Map<String, Quantity> podRequests =
        pods.get(0).getSpec().getContainers().get(0).getResources().getRequests();
    assertThat(spec(podGroup).get("minResources"))
        .isEqualTo(
            Map.of(
                "nvidia.com/gpu", "8",
                "cpu", twice(podRequests.get("cpu")),
                "memory", twice(podRequests.get("memory"))));
    assertThat(podGroup.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getName()).isEqualTo("gang-volcano"));
    assertThat(pods)
        .allSatisfy(
            pod -> {
              assertThat(pod.getSpec().getSchedulerName()).isEqualTo("volcano");
              assertThat(pod.getMetadata().getAnnotations())
                  .containsEntry("scheduling.k8s.io/group-name", "gang-volcano");
            });
  }

  @Test
  void aCoschedulingGangJobGetsASchedulerPluginsPodGroupAndLabelledPods() {
    cluster.apply(
        """
        metadata: {name: gang-cosched}
        spec:
          worldSize: 3
          device: cpu
          gang: {scheduler: coscheduling}
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);

    List<Pod> pods =
        cluster.awaitPods("gang-cosched", "gang-cosched-0", "gang-cosched-1", "gang-cosched-2");
    GenericKubernetesResource podGroup = awaitPodGroup(COSCHEDULING, "gang-cosched");
    assertThat(podGroup.getApiVersion()).isEqualTo("scheduling.x-k8s.io/v1alpha1");
    assertThat(spec(podGroup)).containsEntry("minMember", 3);
    assertThat(pods)
        .allSatisfy(
            pod -> {
              assertThat(pod.getSpec().getSchedulerName()).isEqualTo("scheduler-plugins-scheduler");
              assertThat(pod.getMetadata().getLabels())
                  .containsEntry("scheduling.x-k8s.io/pod-group", "gang-cosched");
            });
    assertThat(
            client
                .genericKubernetesResources(VOLCANO)
                .inNamespace(cluster.namespace)
                .list()
                .getItems())
        .extracting(g -> g.getMetadata().getName())
        .doesNotContain("gang-cosched");
  }

  @Test
  void aJobWithoutGangGetsNoPodGroupAndTheDefaultScheduler() {
    cluster.apply(
        """
        metadata: {name: no-gang}
        spec:
          worldSize: 1
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);

    Pod pod = cluster.awaitPods("no-gang", "no-gang-0").get(0);
    assertThat(pod.getSpec().getSchedulerName()).isNotIn("volcano", "scheduler-plugins-scheduler");
    assertThat(
            client
                .genericKubernetesResources(VOLCANO)
                .inNamespace(cluster.namespace)
                .withName("no-gang")
                .get())
        .isNull();
    assertThat(
            client
                .genericKubernetesResources(COSCHEDULING)
                .inNamespace(cluster.namespace)
                .withName("no-gang")
                .get())
        .isNull();
  }

  private GenericKubernetesResource awaitPodGroup(ResourceDefinitionContext api, String name) {
    return await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                client
                    .genericKubernetesResources(api)
                    .inNamespace(cluster.namespace)
                    .withName(name)
                    .get(),
            group -> group != null);
  }

  @Test
  void aPodGroupOfADeletedNamesakeIsWaitedForNotAdopted() {
    // what the garbage collector has not yet removed of a CommJob deleted a moment ago
    createVolcanoPodGroup(
        podGroup("gang-again")
            .editMetadata()
            .addNewOwnerReference()
            .withApiVersion("gpucomm.dev/v1alpha1")
            .withKind("CommJob")
            .withName("gang-again")
            .withUid("uid-of-the-deleted-job")
            .withController(true)
            .endOwnerReference()
            .endMetadata());

    cluster.apply(
        """
        metadata: {name: gang-again}
        spec:
          worldSize: 2
          ranksPerPod: 1
          gang: {scheduler: volcano}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);

    CommJobStatus status =
        cluster.awaitStatus(
            "gang-again",
            s ->
                s.getConditions() != null
                    && !s.getConditions().isEmpty()
                    && "PredecessorTerminating".equals(s.getConditions().getFirst().getReason()));
    assertThat(status.getStartTime()).isNull();
    assertThat(cluster.pods("gang-again")).isEmpty();

    client
        .genericKubernetesResources(VOLCANO)
        .inNamespace(cluster.namespace)
        .withName("gang-again")
        .delete();

    cluster.awaitPods("gang-again", "gang-again-0", "gang-again-1");
    assertThat(awaitPodGroup(VOLCANO, "gang-again").getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner ->
                assertThat(owner.getUid())
                    .isEqualTo(cluster.job("gang-again").getMetadata().getUid()));
  }

  @Test
  void aJobPlacedAnewWhileSuspendedResumesWithAGroupOfItsNewRequests() {
    cluster.apply(
        """
        metadata: {name: gang-resized}
        spec:
          worldSize: 2
          ranksPerPod: 1
          gang: {scheduler: volcano, queue: gpu-benchmarks}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);
    cluster.awaitPods("gang-resized", "gang-resized-0", "gang-resized-1");
    assertThat(spec(awaitPodGroup(VOLCANO, "gang-resized"))).containsEntry("minMember", 2);
    // what Volcano's admission adds to a group stays
    client
        .genericKubernetesResources(VOLCANO)
        .inNamespace(cluster.namespace)
        .withName("gang-resized")
        .edit(
            group -> {
              Map<String, Object> defaulted = new java.util.LinkedHashMap<>(spec(group));
              defaulted.put("minTaskMember", Map.of("default", 2));
              group.setAdditionalProperty("spec", defaulted);
              return group;
            });

    // a queue preempts the job, and places it anew on hosts where each rank asks for 64 CPUs:
    // while suspended, the template is what may change (the CRD keeps worldSize as created)
    cluster.edit("gang-resized", job -> job.getSpec().setSuspend(true));
    await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () ->
                cluster.pods("gang-resized").isEmpty()
                    && cluster.configMap("gang-resized-spec") == null);
    cluster.edit(
        "gang-resized",
        job -> {
          job.getSpec()
              .setTemplate(
                  new PodTemplateSpecBuilder()
                      .withNewSpec()
                      .addNewContainer()
                      .withNewResources()
                      .addToRequests("cpu", new Quantity("64"))
                      .endResources()
                      .endContainer()
                      .endSpec()
                      .build());
          job.getSpec().setSuspend(false);
        });

    cluster.awaitPods("gang-resized", "gang-resized-0", "gang-resized-1");
    Map<String, Object> placed = spec(awaitPodGroup(VOLCANO, "gang-resized"));
    assertThat(placed)
        .containsEntry("minMember", 2)
        .containsEntry("queue", "gpu-benchmarks")
        .containsEntry("minTaskMember", Map.of("default", 2));
    assertThat(placed.get("minResources")).asString().contains("cpu=128");
  }

  @Test
  void aPodGroupOfTheJobsNameThatNoCommJobControlsFailsTheJobBeforeAnyPodJoinsIt() {
    // made by hand, or by another kind of job: its minMember is not this job's
    createVolcanoPodGroup(
        podGroup("gang-taken").addToAdditionalProperties("spec", Map.of("minMember", 8)));

    cluster.apply(
        """
        metadata: {name: gang-taken}
        spec:
          worldSize: 2
          ranksPerPod: 1
          gang: {scheduler: volcano}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);

    CommJobStatus status = cluster.awaitStatus("gang-taken", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(status, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(status, "Failed").getMessage())
        .isEqualTo(
            "spec.gang: a PodGroup named gang-taken exists and is not this job's (controlled by no"
                + " object); delete it or give the job another name");
    assertThat(cluster.pods("gang-taken")).isEmpty();
    assertThat(spec(awaitPodGroup(VOLCANO, "gang-taken"))).containsEntry("minMember", 8);
  }

  @Test
  void aGangWaitingInVolcanosQueueWaitsItsTurnThenHasTheWholeSchedulingTimeout() {
    cluster.apply(
        """
        metadata: {name: gang-queued}
        spec:
          worldSize: 2
          ranksPerPod: 1
          device: cpu
          schedulingTimeoutSeconds: 2
          gang: {scheduler: volcano, queue: gpu-benchmarks}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);
    cluster.awaitPods("gang-queued", "gang-queued-0", "gang-queued-1");
    awaitPodGroup(VOLCANO, "gang-queued");
    // the queue is full: Volcano keeps the group Pending and marks its pods unschedulable, long
    // past the job's scheduling timeout
    setVolcanoPhase(
        "gang-queued", "Pending", "queue resource quota insufficient: gpu-benchmarks is full");
    Instant anHourAgo = Instant.now().minus(Duration.ofHours(1));
    String notReady = "pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Undetermined";
    cluster.kubelet.unschedulable("gang-queued-0", anHourAgo, notReady);
    cluster.kubelet.unschedulable("gang-queued-1", anHourAgo, notReady);

    CommJobStatus queued =
        cluster.awaitStatus(
            "gang-queued", s -> TestCluster.hasCondition(s, "Queued", "True", "PodGroupPending"));
    assertThat(condition(queued, "Queued").getMessage())
        .isEqualTo(
            "Volcano's queue gpu-benchmarks has not admitted PodGroup gang-queued yet (phase"
                + " Pending): queue resource quota insufficient: gpu-benchmarks is full");
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(() -> cluster.job("gang-queued").getStatus().getPhase() == Phase.PENDING);

    // admitted, but no node fits yet: the scheduling timeout runs from the release
    setVolcanoPhase("gang-queued", "Inqueue", null);
    cluster.kubelet.unschedulable(
        "gang-queued-0", anHourAgo, "0/3 nodes are available: 3 Insufficient cpu.");
    CommJobStatus released =
        cluster.awaitStatus(
            "gang-queued", s -> TestCluster.hasCondition(s, "Queued", "False", "Released"));
    assertThat(released.getPhase()).isEqualTo(Phase.PENDING);
    CommJobStatus failed = cluster.awaitStatus("gang-queued", s -> s.getPhase() == Phase.FAILED);
    assertThat(condition(failed, "Failed").getReason()).isEqualTo("Unschedulable");
    assertThat(condition(failed, "Failed").getMessage())
        .startsWith("pod gang-queued-0 (rank 0) could not be scheduled within 2 s: 0/3 nodes");
    assertThat(
            Duration.between(
                Instant.parse(condition(failed, "Queued").getLastTransitionTime()),
                Instant.parse(condition(failed, "Failed").getLastTransitionTime())))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aPodGroupTheApiServerWillNotShowKeepsNoGangFromBeingSuspended() {
    cluster.apply(
        """
        metadata: {name: gang-hidden}
        spec:
          worldSize: 2
          ranksPerPod: 1
          device: cpu
          gang: {scheduler: volcano}
          workload: {kind: benchmark, benchmark: {tokens: [32]}}
        """);
    cluster.awaitPods("gang-hidden", "gang-hidden-0", "gang-hidden-1");
    awaitPodGroup(VOLCANO, "gang-hidden");
    // a policy or a broken webhook of the scheduler's kind: every read of the group is refused
    server
        .expect()
        .get()
        .withPath(
            "/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups/gang-hidden"
                .formatted(cluster.namespace))
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("podgroups.scheduling.volcano.sh \"gang-hidden\" is forbidden")
                .build())
        .always();

    cluster.edit("gang-hidden", job -> job.getSpec().setSuspend(true));

    // a suspended run needs no word of its queue: its pods go, and free their GPUs
    cluster.awaitStatus(
        "gang-hidden", s -> TestCluster.hasCondition(s, "Suspended", "True", "JobSuspended"));
    await().atMost(TestCluster.PATIENCE).until(() -> cluster.pods("gang-hidden").isEmpty());
  }

  /** Volcano's word on a PodGroup: its phase, and why it is not scheduled when it says so. */
  private void setVolcanoPhase(String name, String phase, String unschedulable) {
    Map<String, Object> status = new java.util.LinkedHashMap<>();
    status.put("phase", phase);
    if (unschedulable != null) {
      status.put(
          "conditions",
          List.of(
              Map.of(
                  "type", "Unschedulable",
                  "status", "True",
                  "reason", "NotEnoughResources",
                  "message", unschedulable)));
    }
    client
        .genericKubernetesResources(VOLCANO)
        .inNamespace(cluster.namespace)
        .withName(name)
        .edit(
            group -> {
              group.setAdditionalProperty("status", status);
              return group;
            });
  }

  /** A Volcano PodGroup named {@code name}, as someone other than this job's operator makes it. */
  private static GenericKubernetesResourceBuilder podGroup(String name) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("scheduling.volcano.sh/v1beta1")
        .withKind("PodGroup")
        .withNewMetadata()
        .withName(name)
        .endMetadata();
  }

  private void createVolcanoPodGroup(GenericKubernetesResourceBuilder podGroup) {
    client
        .genericKubernetesResources(VOLCANO)
        .inNamespace(cluster.namespace)
        .resource(podGroup.build())
        .create();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource podGroup) {
    return (Map<String, Object>) podGroup.getAdditionalProperties().get("spec");
  }

  private static String twice(Quantity quantity) {
    return quantity
        .getNumericalAmount()
        .multiply(java.math.BigDecimal.TWO)
        .stripTrailingZeros()
        .toPlainString();
  }
}
