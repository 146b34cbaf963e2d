package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A node that stopped answering, seen from its pods: the verdict on a run whose peers failed on a
 * silent node waits for the node controller to say so.
 */
final class NodeLoss {
  /** The reasons the kubelet gives a pod's Ready=False; the node controller gives none. */
  private static final Set<String> KUBELET_NOT_READY =
      Set.of("ContainersNotReady", "ReadinessGatesNotReady", "PodCompleted");

  private final OperatorConfig config;

  NodeLoss(OperatorConfig config) {
    this.config = config;
  }

  /**
   * The verdict on a run some of whose pods failed while another still shows Running. A node that
   * stops answering leaves its pod Running: its peers fail within seconds on its silence, and the
   * node controller marks the pod NotReady only after its grace period (40-50 s). So the verdict
   * waits, up to the node-loss grace after the first failure, for the pods still Running to end as
   * well (their ranks fail on the first's) or for one of them to show its node lost: then that is
   * the run's story, a disruption, and not its peers' failures. Empty to judge the failures.
   */
  Optional<JobOutcome> verdict(
      JobLayout layout,
      JobObservation observation,
      List<Map.Entry<Integer, Pod>> failed,
      String failuresInBrief,
      Instant now) {
    List<Map.Entry<Integer, Pod>> stillRunning =
        observation.podsByIndex().entrySet().stream()
            .filter(
                e ->
                    e.getKey() < layout.podCount()
                        && "Running".equals(PodPhases.rankPhaseOf(e.getValue())))
            .toList();
    if (stillRunning.isEmpty()) {
      return Optional.empty();
    }
    Optional<Map.Entry<Integer, Pod>> lost =
        stillRunning.stream().filter(e -> nodeLost(e.getValue())).findFirst();
    if (lost.isPresent()) {
      return Optional.of(
          new JobOutcome.Failed(
              Reasons.NODE_LOST,
              ("pod %s (%s) is on a node that stopped answering (%s), and its peers failed on"
                      + " its silence: %s")
                  .formatted(
                      lost.get().getValue().getMetadata().getName(),
                      layout.ranksOf(lost.get().getKey()),
                      notReadySince(lost.get().getValue()),
                      failuresInBrief),
              Optional.of(RestartCause.DISRUPTION)));
    }
    Instant finishedAt = PodFailureDescriber.finishedAt(failed.getFirst().getValue());
    Duration grace = config.nodeLossGrace();
    if (!grace.isPositive() || finishedAt.equals(Instant.MAX)) {
      return Optional.empty();
    }
    // the kubelet's clock, never later than the operator's: a kubelet ahead would stretch the wait
    Instant firstFailure = finishedAt.isAfter(now) ? now : finishedAt;
    Duration left = Duration.between(now, firstFailure.plus(grace));
    return left.isPositive()
        ? Optional.of(new JobOutcome.InProgress(Optional.of(left)))
        : Optional.empty();
  }

  /**
   * Whether the node of a pod that still shows Running stopped answering: the node controller marks
   * such a pod Ready=False and leaves its ContainersReady as the kubelet last said, or the taint
   * manager began evicting it. The kubelet's own Ready=False says why (a sidecar's failed readiness
   * turns ContainersReady False too; a readiness gate gives its reason).
   */
  static boolean nodeLost(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    List<PodCondition> conditions = pod.getStatus().getConditions();
    boolean notReady =
        conditions.stream()
            .anyMatch(
                c ->
                    "Ready".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && !KUBELET_NOT_READY.contains(
                            Objects.requireNonNullElse(c.getReason(), "")));
    boolean containersNotReady = hasCondition(conditions, "ContainersReady", "False");
    boolean evictedForItsNode =
        conditions.stream()
            .anyMatch(
                c ->
                    "DisruptionTarget".equals(c.getType())
                        && "True".equals(c.getStatus())
                        && "DeletionByTaintManager".equals(c.getReason()));
    return (notReady && !containersNotReady) || evictedForItsNode;
  }

  private static boolean hasCondition(List<PodCondition> conditions, String type, String status) {
    return conditions.stream()
        .anyMatch(c -> type.equals(c.getType()) && status.equals(c.getStatus()));
  }

  private static String notReadySince(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()))
        .map(PodCondition::getLastTransitionTime)
        .filter(time -> time != null && !time.isEmpty())
        .map(time -> "NotReady since " + time)
        .findFirst()
        .orElse("its eviction began");
  }
}
