package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;

/** Plays the node agent in tests: moves pods through their phases as a kubelet would. */
final class FakeKubelet {
  private final KubernetesClient client;
  private final String namespace;

  FakeKubelet(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  void run(String pod) {
    setStatus(
        pod,
        new PodStatusBuilder()
            .withPhase("Running")
            .addToConditions(scheduled("True", null, null, Instant.now()))
            .addToContainerStatuses(
                new ContainerStatusBuilder()
                    .withName(PodTemplateFactory.CONTAINER_NAME)
                    .withReady(true)
                    .withNewState()
                    .withNewRunning()
                    .withStartedAt(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
                    .endRunning()
                    .endState()
                    .build())
            .build());
  }

  void succeed(String pod) {
    terminate(pod, "Succeeded", 0, "");
  }

  /** The container exits with {@code exitCode}, leaving {@code message} as termination message. */
  void fail(String pod, int exitCode, String message) {
    terminate(pod, "Failed", exitCode, message);
  }

  /** The scheduler has found no node for the pod since {@code since}. */
  void unschedulable(String pod, Instant since, String message) {
    setStatus(
        pod,
        new PodStatusBuilder()
            .withPhase("Pending")
            .addToConditions(scheduled("False", "Unschedulable", message, since))
            .build());
  }

  /**
   * The pod was placed on a node at {@code since}, where its container waits for {@code reason}
   * (ImagePullBackOff, say).
   */
  void waiting(String pod, Instant since, String reason, String message) {
    setStatus(pod, waitingStatus(since, reason, message));
  }

  /** The status of a pod placed at {@code since} whose rank container waits for {@code reason}. */
  static PodStatus waitingStatus(Instant since, String reason, String message) {
    return new PodStatusBuilder()
        .withPhase("Pending")
        .addToConditions(scheduled("True", null, null, since))
        .addToContainerStatuses(
            new ContainerStatusBuilder()
                .withName(PodTemplateFactory.CONTAINER_NAME)
                .withReady(false)
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .withMessage(message)
                .endWaiting()
                .endState()
                .build())
        .build();
  }

  /** The pod has been held back by scheduling gates (a queue admits it) since {@code since}. */
  void gated(String pod, Instant since) {
    setStatus(
        pod,
        new PodStatusBuilder()
            .withPhase("Pending")
            .addToConditions(
                scheduled(
                    "False",
                    "SchedulingGated",
                    "Scheduling is blocked due to non-empty" + " scheduling gates",
                    since))
            .build());
  }

  /**
   * The container exits with {@code exitCode} at {@code finishedAt}, leaving {@code message} as
   * termination message.
   */
  void failAt(String pod, int exitCode, String message, Instant finishedAt) {
    terminate(pod, "Failed", exitCode, message, finishedAt);
  }

  /**
   * The pod's node stopped answering: the node controller marks the running pod Ready=False and
   * leaves the rest of its status as the kubelet last reported it.
   */
  void nodeLost(String pod) {
    editStatus(
        pod,
        current ->
            current
                .getStatus()
                .getConditions()
                .add(
                    new PodConditionBuilder()
                        .withType("Ready")
                        .withStatus("False")
                        .withLastTransitionTime(
                            Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
                        .build()));
  }

  private void terminate(String pod, String phase, int exitCode, String message) {
    terminate(pod, phase, exitCode, message, null);
  }

  /** As the kubelet ends the container; {@code finishedAt} null leaves the time unsaid. */
  private void terminate(
      String pod, String phase, int exitCode, String message, Instant finishedAt) {
    setStatus(
        pod,
        new PodStatusBuilder()
            .withPhase(phase)
            .addToConditions(scheduled("True", null, null, Instant.now()))
            .addToContainerStatuses(
                new ContainerStatusBuilder()
                    .withName(PodTemplateFactory.CONTAINER_NAME)
                    .withReady(false)
                    .withNewState()
                    .withNewTerminated()
                    .withExitCode(exitCode)
                    .withReason(exitCode == 0 ? "Completed" : "Error")
                    .withMessage(message)
                    .withFinishedAt(
                        finishedAt == null
                            ? null
                            : finishedAt.truncatedTo(ChronoUnit.SECONDS).toString())
                    .endTerminated()
                    .endState()
                    .build())
            .build());
  }

  private static io.fabric8.kubernetes.api.model.PodCondition scheduled(
      String status, String reason, String message, Instant since) {
    return new PodConditionBuilder()
        .withType("PodScheduled")
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(since.truncatedTo(ChronoUnit.SECONDS).toString())
        .build();
  }

  private void setStatus(String pod, PodStatus status) {
    editStatus(pod, current -> current.setStatus(status));
  }

  /** Changes the pod's status in place, as the kubelet or the node controller writes it. */
  private void editStatus(String pod, Consumer<Pod> change) {
    client
        .pods()
        .inNamespace(namespace)
        .withName(pod)
        .editStatus(
            (Pod current) -> {
              change.accept(current);
              return current;
            });
  }
}
