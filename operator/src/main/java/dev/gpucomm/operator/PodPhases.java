package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Objects;

/** Where a job's pods stand, in the words of the status and of its verdicts. */
final class PodPhases {
  private PodPhases() {}

  /**
   * The pod's phase as far as its ranks go. A sidecar that a webhook added (a service mesh's proxy,
   * a log shipper) keeps a pod Running after the gpucomm container has ended, so that container's
   * exit decides; its restart policy is Never, so the end is final.
   */
  static String rankPhaseOf(Pod pod) {
    String phase = phaseOf(pod);
    if (!"Running".equals(phase) || pod.getStatus().getContainerStatuses() == null) {
      return phase;
    }
    return pod.getStatus().getContainerStatuses().stream()
        .filter(container -> PodTemplateFactory.CONTAINER_NAME.equals(container.getName()))
        .map(
            container -> container.getState() == null ? null : container.getState().getTerminated())
        .filter(Objects::nonNull)
        .findFirst()
        .map(ended -> Integer.valueOf(0).equals(ended.getExitCode()) ? "Succeeded" : "Failed")
        .orElse(phase);
  }

  /** The pod's phase as the kubelet reports it; Pending before it reports any. */
  static String phaseOf(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getPhase() == null
        ? "Pending"
        : pod.getStatus().getPhase();
  }

  /**
   * "3 of 4 pods running, 1 pending" for the Ready condition and timeout messages, with the first
   * pod whose container cannot start.
   */
  static String podCounts(Map<Integer, Pod> pods, JobLayout layout) {
    long running = pods.values().stream().filter(p -> "Running".equals(rankPhaseOf(p))).count();
    long pending = pods.values().stream().filter(p -> "Pending".equals(rankPhaseOf(p))).count();
    long succeeded = pods.values().stream().filter(p -> "Succeeded".equals(rankPhaseOf(p))).count();
    long failed = pods.values().stream().filter(p -> "Failed".equals(rankPhaseOf(p))).count();
    StringBuilder text =
        new StringBuilder("%d of %d pods running".formatted(running, layout.podCount()));
    if (pending > 0) {
      text.append(", ").append(pending).append(" pending");
      // the first pod the kubelet cannot start says why the rest of the job waits
      pods.values().stream()
          .flatMap(pod -> ContainerStall.of(pod).map(stall -> Map.entry(pod, stall)).stream())
          .findFirst()
          .ifPresent(
              stalled ->
                  text.append(" (pod ")
                      .append(stalled.getKey().getMetadata().getName())
                      .append(": ")
                      .append(stalled.getValue().inWords())
                      .append(')'));
    }
    if (succeeded > 0) {
      text.append(", ").append(succeeded).append(" succeeded");
    }
    if (failed > 0) {
      text.append(", ").append(failed).append(" failed");
    }
    return text.toString();
  }
}
