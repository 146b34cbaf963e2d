package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.List;
import java.util.Objects;

/**
 * One line on why a pod failed: its container's exit code and termination message (the failing
 * rank's error, or with FallbackToLogsOnError the last log line), else the pod's own reason.
 */
final class PodFailureDescriber {
  static final int MAX_MESSAGE = 300;

  private PodFailureDescriber() {}

  static String describe(Pod pod) {
    PodStatus status = pod.getStatus();
    if (status == null) {
      return "failed";
    }
    List<ContainerStatus> containers =
        Objects.requireNonNullElse(status.getContainerStatuses(), List.of());
    for (ContainerStatus container : containers) {
      if (!PodTemplateFactory.CONTAINER_NAME.equals(container.getName())) {
        continue;
      }
      ContainerStateTerminated terminated =
          container.getState() != null ? container.getState().getTerminated() : null;
      if (terminated == null && container.getLastState() != null) {
        terminated = container.getLastState().getTerminated();
      }
      if (terminated != null) {
        String message = lastLine(terminated.getMessage());
        String exit = "exit code " + terminated.getExitCode();
        if (message.isEmpty()) {
          message = Objects.requireNonNullElse(terminated.getReason(), "no termination message");
        }
        return exit + ": " + message;
      }
    }
    String reason = Objects.requireNonNullElse(status.getReason(), "Failed");
    String message = lastLine(status.getMessage());
    return message.isEmpty() ? reason : reason + ": " + message;
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
}
