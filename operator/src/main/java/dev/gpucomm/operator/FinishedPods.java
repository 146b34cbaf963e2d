package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CleanPodPolicy;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Objects;

/**
 * Which pods of a finished job stay, by its cleanPodPolicy (MPIJob's names): Running deletes the
 * pods that have not finished, so that no rank hangs on a dead peer holding its GPUs; All deletes
 * every pod but a failed job's failed pods, kept for their logs until the job's TTL; None keeps
 * every pod.
 *
 * <p>A pod has finished when its phase says so. A sidecar that a webhook added (a service mesh's
 * proxy) keeps a pod Running after its rank container ended, and a Running pod holds its node's
 * GPUs until its activeDeadlineSeconds; such a pod goes under Running and All even when its rank
 * failed, since the rank's error is already in the job's status.
 */
final class FinishedPods {
  private FinishedPods() {}

  static List<Pod> kept(CleanPodPolicy policy, JobOutcome outcome, JobObservation observation) {
    CleanPodPolicy effective = Objects.requireNonNullElse(policy, CommJobDefaults.CLEAN_POD_POLICY);
    return observation.podsByIndex().values().stream()
        .filter(pod -> keeps(effective, outcome, pod))
        .toList();
  }

  private static boolean keeps(CleanPodPolicy policy, JobOutcome outcome, Pod pod) {
    String phase = PodPhases.phaseOf(pod);
    boolean ended = phase.equals("Succeeded") || phase.equals("Failed");
    return switch (policy) {
      case NONE -> true;
      case RUNNING -> ended;
      case ALL ->
          ended
              && outcome instanceof JobOutcome.Failed
              && PodPhases.rankPhaseOf(pod).equals("Failed");
    };
  }
}
