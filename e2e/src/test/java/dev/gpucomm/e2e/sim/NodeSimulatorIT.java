package dev.gpucomm.e2e.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated node plays kubelet faithfully for a container it runs as a local process. */
@EnableKubernetesMockClient(crud = true, https = false)
class NodeSimulatorIT {
  static KubernetesMockServer server;
  static KubernetesClient client;

  @TempDir Path work;
  NodeSimulator node;

  @BeforeEach
  void startNode() {
    node =
        new NodeSimulator(
            client,
            server.url("/"),
            Path.of(System.getProperty("java.home"), "bin", "java"),
            System.getProperty("java.class.path"),
            FakeGpucomm.class.getName(),
            work);
    node.start();
    client
        .configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("sim-spec")
                .withNamespace("test")
                .endMetadata()
                .addToData("job.json", "{\"worldSize\":2}")
                .build())
        .createOr(NonDeletingOperation::update);
  }

  @AfterEach
  void stopNode() {
    node.close();
  }

  @Test
  void aContainerThatExitsCleanlyLeavesItsPodSucceededWithItsMessage() throws Exception {
    create(pod("sim-0", List.of("gpucomm", "launch", "0", "done: 2 ranks")));

    PodStatus status = awaitPhase("sim-0", "Succeeded");

    var terminated = status.getContainerStatuses().getFirst().getState().getTerminated();
    assertThat(terminated.getExitCode()).isZero();
    assertThat(terminated.getReason()).isEqualTo("Completed");
    assertThat(terminated.getMessage()).isEqualTo("done: 2 ranks");
    String log = Files.readString(node.podsOf("sim").getFirst().log());
    assertThat(log)
        .contains("args=launch 0 done: 2 ranks")
        .contains("env GPUCOMM_POD_NAME=sim-0")
        .contains("env GPUCOMM_NAMESPACE=test")
        .contains("env GPUCOMM_RENDEZVOUS=127.0.0.1:")
        .contains("env GPUCOMM_KUBE_API=" + server.url("/"))
        .contains("env GPUCOMM_EXPANDED=sim-0.sim")
        .contains("job.json={\"worldSize\":2}")
        .doesNotContain("sim.test.svc");
  }

  @Test
  void aContainerThatFailsLeavesItsPodFailedWithExitCodeAndMessage() {
    create(pod("sim-1", List.of("gpucomm", "launch", "3", "rank 1: out of memory")));

    PodStatus status = awaitPhase("sim-1", "Failed");

    var terminated = status.getContainerStatuses().getFirst().getState().getTerminated();
    assertThat(terminated.getExitCode()).isEqualTo(3);
    assertThat(terminated.getReason()).isEqualTo("Error");
    assertThat(terminated.getMessage()).isEqualTo("rank 1: out of memory");
  }

  @Test
  void deletingARunningPodKillsItsProcesses() {
    create(pod("sim-2", List.of("gpucomm", "sleep")));
    awaitPhase("sim-2", "Running");
    await().atMost(Duration.ofSeconds(10)).until(() -> node.hasLiveProcesses("sim"));

    client.pods().inNamespace("test").withName("sim-2").delete();

    await().atMost(Duration.ofSeconds(10)).until(() -> !node.hasLiveProcesses("sim"));
  }

  @Test
  void aHeldPodStaysPendingAndRunsNothing() {
    node.holdPod("test", "sim-3");
    create(pod("sim-3", List.of("gpucomm", "launch", "0")));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> status("sim-3") != null && status("sim-3").getContainerStatuses() != null);

    assertThat(status("sim-3").getPhase()).isEqualTo("Pending");
    assertThat(
            status("sim-3").getContainerStatuses().getFirst().getState().getWaiting().getReason())
        .isEqualTo("ContainerCreating");
    assertThat(node.hasLiveProcesses("sim")).isFalse();
  }

  private void create(Pod pod) {
    client.pods().inNamespace("test").resource(pod).create();
  }

  private PodStatus awaitPhase(String name, String phase) {
    await(name + " " + phase)
        .atMost(Duration.ofSeconds(30))
        .until(() -> status(name) != null && phase.equals(status(name).getPhase()));
    return status(name);
  }

  private PodStatus status(String name) {
    Pod pod = client.pods().inNamespace("test").withName(name).get();
    return pod == null ? null : pod.getStatus();
  }

  private static Pod pod(String name, List<String> command) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("test")
        .addToLabels(CommJob.JOB_LABEL, "sim")
        .endMetadata()
        .withNewSpec()
        .withHostname(name)
        .withSubdomain("sim")
        .addNewContainer()
        .withName("gpucomm")
        .withImage("gpucomm-runtime:test")
        .withCommand(command)
        .addNewEnv()
        .withName("GPUCOMM_POD_NAME")
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("metadata.name")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .addNewEnv()
        .withName("GPUCOMM_NAMESPACE")
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("metadata.namespace")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .addNewEnv()
        .withName("GPUCOMM_EXPANDED")
        .withValue("$(GPUCOMM_POD_NAME).sim")
        .endEnv()
        .addNewEnv()
        .withName("GPUCOMM_RENDEZVOUS")
        .withValue("sim-0.sim.test.svc:29500")
        .endEnv()
        .addNewVolumeMount()
        .withName("spec")
        .withMountPath("/etc/gpucomm")
        .endVolumeMount()
        .addNewVolumeMount()
        .withName("shm")
        .withMountPath("/dev/shm")
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("spec")
        .withNewConfigMap()
        .withName("sim-spec")
        .endConfigMap()
        .endVolume()
        .addNewVolume()
        .withName("shm")
        .withNewEmptyDir()
        .withMedium("Memory")
        .endEmptyDir()
        .endVolume()
        .withRestartPolicy("Never")
        .endSpec()
        .build();
  }
}
