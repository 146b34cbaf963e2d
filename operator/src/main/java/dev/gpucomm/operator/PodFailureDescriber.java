package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One line on why a pod failed: its container's exit code and termination message (the failing
 * rank's error, or with FallbackToLogsOnError the last log line), else the pod's own reason.
 */
final class PodFailureDescriber {
  static final int MAX_MESSAGE = 300;

  private PodFailureDescriber() {}

  static String describe(Pod pod) {
    Optional<ContainerStateTerminated> terminated = terminated(pod);
    if (terminated.isPresent()) {
      String message = lastLine(terminated.get().getMessage());
      if (message.isEmpty()) {
        message =
            Objects.requireNonNullElse(terminated.get().getReason(), "no termination message");
      }
      return "exit code " + terminated.get().getExitCode() + ": " + message;
    }
    PodStatus status = pod.getStatus();
    if (status == null) {
      return "failed";
    }
    String reason = Objects.requireNonNullElse(status.getReason(), "Failed");
    String message = lastLine(status.getMessage());
    return message.isEmpty() ? reason : reason + ": " + message;
  }

  /** When the pod's container finished; the latest instant when unknown. */
  static Instant finishedAt(Pod pod) {
    return terminated(pod)
        .map(ContainerStateTerminated::getFinishedAt)
        .filter(text -> !text.isEmpty())
        .map(Instant::parse)
        .orElse(Instant.MAX);
  }

  /** The last non-blank line, shortened: what a rank writes last is its error. */
  static String lastLine(String text) {
    if (text == null) {
      return "";
    }
    String line =
        text.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce((a, b) -> b).orElse("");
    return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE - 3) + "...";
  }

  private static Optional<ContainerStateTerminated> terminated(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
      if (PodTemplateFactory.CONTAINER_NAME.equals(container.getName())) {
        ContainerStateTerminated terminated =
            container.getState() != null ? container.getState().getTerminated() : null;
        if (terminated == null && container.getLastState() != null) {
          terminated = container.getLastState().getTerminated();
        }
        return Optional.ofNullable(terminated);
      }
    }
    return Optional.empty();
  }
}
