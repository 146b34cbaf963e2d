package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * One line on why a pod failed. A reason of the pod itself (Evicted, DeadlineExceeded) comes first:
 * the kubelet's verdict says more than the exit code its killing left. Otherwise the container's
 * exit code, the kubelet's reason for it where that says something (OOMKilled), and its termination
 * message (the failing rank's error, or with FallbackToLogsOnError the last log line).
 */
final class PodFailureDescriber {
  static final int MAX_MESSAGE = 300;

  /** Container termination reasons that add nothing to the exit code. */
  private static final Set<String> GENERIC_REASONS = Set.of("Error", "Completed");

  private PodFailureDescriber() {}

  static String describe(Pod pod) {
    PodStatus status = pod.getStatus();
    if (status == null) {
      return "failed";
    }
    if (status.getReason() != null && !status.getReason().isEmpty()) {
      String message = lastLine(status.getMessage());
      return message.isEmpty() ? status.getReason() : status.getReason() + ": " + message;
    }
    Optional<ContainerStateTerminated> terminated = terminated(pod);
    if (terminated.isEmpty()) {
      Optional<String> initFailure = failedInitContainer(pod);
      if (initFailure.isPresent()) {
        return initFailure.get();
      }
      String message = lastLine(status.getMessage());
      return message.isEmpty() ? "Failed" : "Failed: " + message;
    }
    return exitOf(terminated.get());
  }

  /** "exit code 1: message", with the kubelet's reason where it says something (OOMKilled). */
  private static String exitOf(ContainerStateTerminated terminated) {
    String reason = terminated.getReason();
    boolean telling = reason != null && !reason.isEmpty() && !GENERIC_REASONS.contains(reason);
    String exit = "exit code " + terminated.getExitCode() + (telling ? " (" + reason + ")" : "");
    String message = lastLine(terminated.getMessage());
    if (message.isEmpty()) {
      return telling ? exit : exit + ": no termination message";
    }
    return exit + ": " + message;
  }

  /**
   * An init container that ended in failure (one a webhook added, say): the pod fails without its
   * rank container ever running, and that container says nothing.
   */
  private static Optional<String> failedInitContainer(Pod pod) {
    if (pod.getStatus().getInitContainerStatuses() == null) {
      return Optional.empty();
    }
    for (ContainerStatus container : pod.getStatus().getInitContainerStatuses()) {
      if (isSidecar(pod, container.getName())) {
        continue; // a native sidecar killed as the pod ended is not why it failed
      }
      ContainerStateTerminated terminated =
          container.getState() != null ? container.getState().getTerminated() : null;
      if (terminated != null && !Integer.valueOf(0).equals(terminated.getExitCode())) {
        return Optional.of("init container " + container.getName() + ": " + exitOf(terminated));
      }
    }
    return Optional.empty();
  }

  /** Whether the init container {@code name} is a sidecar: restartPolicy Always, running beside. */
  private static boolean isSidecar(Pod pod, String name) {
    return pod.getSpec() != null
        && pod.getSpec().getInitContainers() != null
        && pod.getSpec().getInitContainers().stream()
            .anyMatch(c -> name.equals(c.getName()) && "Always".equals(c.getRestartPolicy()));
  }

  /**
   * Why the pod is being deleted, where Kubernetes says (its DisruptionTarget condition): the
   * scheduler preempted it, a drain evicted it, its node was lost.
   */
  static Optional<String> disruption(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> "DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus()))
        .findFirst()
        .map(
            c -> {
              String message = lastLine(c.getMessage());
              String reason = c.getReason() == null ? "DisruptionTarget" : c.getReason();
              return message.isEmpty() ? reason : reason + ": " + message;
            });
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
