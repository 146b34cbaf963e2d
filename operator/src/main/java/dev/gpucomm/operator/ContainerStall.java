package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A scheduled pod whose container the kubelet cannot start: waiting for an image it cannot pull, or
 * for a Secret or ConfigMap key that is not there. The pod holds its node's GPUs while the job
 * waits for it, so the job fails at once on a reason that never passes by itself (an image name
 * that is not one), and otherwise once the pod has waited spec.schedulingTimeoutSeconds since it
 * was scheduled, as a pod the scheduler cannot place does. The kubelet keeps retrying meanwhile: a
 * registry that answers again, or a Secret created late, lets the job run.
 *
 * @param container the container that waits (an init container that a webhook added counts)
 * @param reason the kubelet's reason (ImagePullBackOff, CreateContainerConfigError)
 * @param message the kubelet's message, one line
 * @param since when the pod was scheduled: the waiting state carries no time of its own
 * @param permanent whether waiting cannot end it
 */
record ContainerStall(
    String container, String reason, String message, Instant since, boolean permanent) {

  /** Waiting reasons that retrying will not end. */
  private static final List<String> PERMANENT = List.of("InvalidImageName", "ErrImageNeverPull");

  /** Waiting reasons that end only when something outside the pod changes. */
  private static final List<String> STALLED =
      List.of(
          "ErrImagePull",
          "ImagePullBackOff",
          "CreateContainerConfigError",
          "CreateContainerError",
          "RunContainerError");

  /**
   * What each reason means, in words that stay the same while the kubelet alternates between its
   * reasons (ErrImagePull, then ImagePullBackOff, and again): a status message that changed with
   * them would be rewritten every back-off.
   */
  private static final Map<String, String> IN_WORDS =
      Map.of(
          "InvalidImageName", "its image name is not valid",
          "ErrImageNeverPull", "its image is not on the node and imagePullPolicy is Never",
          "ErrImagePull", "its image cannot be pulled",
          "ImagePullBackOff", "its image cannot be pulled",
          "CreateContainerConfigError", "its container's configuration cannot be made",
          "CreateContainerError", "its container cannot be created",
          "RunContainerError", "its container cannot be started");

  /** The first container of a pending pod that waits for one of those reasons. */
  static Optional<ContainerStall> of(Pod pod) {
    if (!"Pending".equals(PodPhases.phaseOf(pod)) || pod.getStatus() == null) {
      return Optional.empty();
    }
    return Stream.of(
            pod.getStatus().getInitContainerStatuses(), pod.getStatus().getContainerStatuses())
        .filter(Objects::nonNull)
        .flatMap(List::stream)
        .flatMap(container -> stallOf(container, scheduledAt(pod)).stream())
        .findFirst();
  }

  private static Optional<ContainerStall> stallOf(ContainerStatus container, Instant since) {
    ContainerStateWaiting waiting =
        container.getState() == null ? null : container.getState().getWaiting();
    if (waiting == null || waiting.getReason() == null) {
      return Optional.empty();
    }
    String reason = waiting.getReason();
    boolean permanent = PERMANENT.contains(reason);
    if (!permanent && !STALLED.contains(reason)) {
      return Optional.empty(); // ContainerCreating, PodInitializing: on its way
    }
    return Optional.of(
        new ContainerStall(
            container.getName(),
            reason,
            PodFailureDescriber.lastLine(waiting.getMessage()),
            since,
            permanent));
  }

  /** When the pod was placed on its node; its creation when the condition says nothing. */
  private static Instant scheduledAt(Pod pod) {
    List<PodCondition> conditions = pod.getStatus().getConditions();
    String text =
        conditions == null
            ? null
            : conditions.stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(PodCondition::getLastTransitionTime)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    if (text == null || text.isEmpty()) {
      text = pod.getMetadata().getCreationTimestamp();
    }
    return text == null || text.isEmpty() ? Instant.EPOCH : Instant.parse(text);
  }

  /** The stall in words that do not change from one back-off to the next. */
  String inWords() {
    return IN_WORDS.getOrDefault(reason, reason);
  }

  /** The stall with the kubelet's own reason and message, for a verdict. */
  String inFull() {
    return "container "
        + container
        + ": "
        + inWords()
        + " ("
        + reason
        + (message.isEmpty() ? "" : ": " + message)
        + ")";
  }
}
