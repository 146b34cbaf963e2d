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
 */
final class FinishedPods {
  private FinishedPods() {}

  static List<Pod> kept(CleanPodPolicy policy, JobOutcome outcome, JobObservation observation) {
    CleanPodPolicy effective = Objects.requireNonNullElse(policy, CommJobDefaults.CLEAN_POD_POLICY);
    return observation.podsByIndex().values().stream()
        .filter(pod -> keeps(effective, outcome, JobOutcomeJudge.rankPhaseOf(pod)))
        .toList();
  }

  private static boolean keeps(CleanPodPolicy policy, JobOutcome outcome, String phase) {
    return switch (policy) {
      case NONE -> true;
      case RUNNING -> phase.equals("Succeeded") || phase.equals("Failed");
      case ALL -> outcome instanceof JobOutcome.Failed && phase.equals("Failed");
    };
  }
}
