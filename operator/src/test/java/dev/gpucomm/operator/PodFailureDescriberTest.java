package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PodFailureDescriberTest {

  @Test
  void theRanksTerminationMessageAndExitCodeDescribeTheFailure() {
    Pod pod = terminated(2, "rank 5: NCCL error: unhandled system error\n");
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("exit code 2: rank 5: NCCL error: unhandled system error");
  }

  @Test
  void withLogsAsTheMessageTheLastLineIsTheError() {
    Pod pod =
        terminated(
            137,
            "starting ranks\nrank 0 joined\n\njava.lang.OutOfMemoryError: Java heap space\n  ");
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("exit code 137: java.lang.OutOfMemoryError: Java heap space");
  }

  @Test
  void anEvictedPodIsDescribedByItsOwnReason() {
    Pod pod =
        new PodBuilder()
            .withNewStatus()
            .withPhase("Failed")
            .withReason("Evicted")
            .withMessage("The node was low on resource: memory.")
            .endStatus()
            .build();
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("Evicted: The node was low on resource: memory.");
  }

  @Test
  void anEvictionIsNamedEvenThoughTheKilledContainerLeftAnExitCode() {
    // what a kubelet really reports: the pod's reason, and a container terminated by the eviction
    Pod pod = terminated(137, "ContainerStatusUnknown", "rank 3 joined");
    pod.getStatus().setReason("Evicted");
    pod.getStatus().setMessage("The node was low on resource: memory.");
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("Evicted: The node was low on resource: memory.");
  }

  @Test
  void anOutOfMemoryKillIsNamedBesideTheLastLogLine() {
    Pod pod = terminated(137, "OOMKilled", "rank 0 joined\nsize 3/8 (2 MB)\n");
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("exit code 137 (OOMKilled): size 3/8 (2 MB)");
  }

  @Test
  void aGenericReasonAddsNothingAndAMissingMessageIsSaid() {
    assertThat(PodFailureDescriber.describe(terminated(1, "Error", "")))
        .isEqualTo("exit code 1: no termination message");
    assertThat(PodFailureDescriber.describe(terminated(137, "OOMKilled", "")))
        .isEqualTo("exit code 137 (OOMKilled)");
  }

  @Test
  void anInitContainerThatFailedIsNamedWithItsExit() {
    // one a webhook added: the rank container never ran, and says nothing
    Pod pod =
        new PodBuilder()
            .withNewSpec()
            .addNewInitContainer()
            .withName("istio-proxy")
            .withRestartPolicy("Always") // a native sidecar, killed as the pod ended
            .endInitContainer()
            .addNewInitContainer()
            .withName("istio-validation")
            .endInitContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Failed")
            .addNewInitContainerStatus()
            .withName("istio-proxy")
            .withNewState()
            .withNewTerminated()
            .withExitCode(137)
            .withReason("Error")
            .endTerminated()
            .endState()
            .endInitContainerStatus()
            .addNewInitContainerStatus()
            .withName("istio-validation")
            .withNewState()
            .withNewTerminated()
            .withExitCode(126)
            .withReason("Error")
            .withMessage("iptables: permission denied")
            .endTerminated()
            .endState()
            .endInitContainerStatus()
            .endStatus()
            .build();
    assertThat(PodFailureDescriber.describe(pod))
        .isEqualTo("init container istio-validation: exit code 126: iptables: permission denied");
  }

  @Test
  void aDisruptionSaysWhoTookThePodAway() {
    Pod preempted =
        new PodBuilder()
            .withNewStatus()
            .withPhase("Running")
            .addNewCondition()
            .withType("DisruptionTarget")
            .withStatus("True")
            .withReason("PreemptionByScheduler")
            .withMessage("prod/serving-7: preempting to accommodate a higher priority pod")
            .endCondition()
            .endStatus()
            .build();
    assertThat(PodFailureDescriber.disruption(preempted))
        .contains(
            "PreemptionByScheduler: prod/serving-7: preempting to accommodate a higher priority"
                + " pod");
    assertThat(PodFailureDescriber.disruption(new PodBuilder().withNewStatus().endStatus().build()))
        .isEmpty();
  }

  @Test
  void aVeryLongMessageIsShortened() {
    String line = "x".repeat(1000);
    assertThat(PodFailureDescriber.describe(terminated(1, line)))
        .hasSize("exit code 1: ".length() + 300);
  }

  @Test
  void pendingOrUnknownFinishTimesSortLast() {
    assertThat(PodFailureDescriber.finishedAt(terminated(1, "x"))).isEqualTo(Instant.MAX);
  }

  private static Pod terminated(int exitCode, String message) {
    return terminated(exitCode, exitCode == 0 ? "Completed" : "Error", message);
  }

  private static Pod terminated(int exitCode, String reason, String message) {
    return new PodBuilder()
        .withNewStatus()
        .withPhase("Failed")
        .addNewContainerStatus()
        .withName("gpucomm")
        .withNewState()
        .withNewTerminated()
        .withExitCode(exitCode)
        .withReason(reason)
        .withMessage(message)
        .endTerminated()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }
}
