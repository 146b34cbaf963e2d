package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * A job waits for the objects of what came before it to go (a deleted namesake's, its own earlier
 * run's), since its own take their names; one that never goes fails it rather than hold it forever.
 */
final class PredecessorWaits {
  private final OperatorConfig config;

  PredecessorWaits(OperatorConfig config) {
    this.config = config;
  }

  /**
   * A new job waits for the objects of a deleted namesake that carry its names to go (the
   * reconciler's wait); the garbage collector removes them within moments, so objects still there a
   * scheduling timeout after the job was created are stuck (a pod on a node that does not answer)
   * and would hold the job forever. A lost node's pod that the operator removes counts from when
   * its removal falls due, if later ({@code pods}: the pods the job's informer holds).
   */
  Optional<JobOutcome.Failed> predecessorsOverdue(
      CommJob job, String objects, boolean podsAmongThem, Collection<Pod> pods, Instant now) {
    String created = job.getMetadata().getCreationTimestamp();
    if (created == null) {
      return Optional.empty();
    }
    Duration limit = JobDeadlines.schedulingTimeout(job, config);
    Optional<Instant> lastRemovalDue =
        LostPods.removalDelay(config)
            .flatMap(
                delay ->
                    pods.stream()
                        .map(pod -> LostPods.removalDue(pod, delay))
                        .flatMap(Optional::stream)
                        .max(Comparator.naturalOrder()))
            .filter(Instant.parse(created)::isBefore);
    Instant since = lastRemovalDue.orElse(Instant.parse(created));
    if (!since.plus(limit).isBefore(now)) {
      return Optional.empty();
    }
    return Optional.of(
        new JobOutcome.Failed(
            Reasons.UNSCHEDULABLE,
            "names this job needs are still held by a deleted CommJob named %s, %d s after %s"
                    .formatted(
                        job.getMetadata().getName(),
                        limit.toSeconds(),
                        lastRemovalDue.isPresent()
                            ? "the removal of a lost node's pod fell due"
                            : "the job was created")
                + ": %s%s"
                    .formatted(
                        objects,
                        podsAmongThem
                            ? " (a pod on a node that does not answer never finishes terminating)"
                            : "")));
  }

  /**
   * A job about to start waits for the pods of its earlier run (before a suspension) to go, since
   * its own take their names; one still terminating after the scheduling timeout is on a node that
   * does not answer, and would hold the job forever.
   */
  Optional<JobOutcome> stuckTerminating(CommJob job, JobObservation observation, Instant now) {
    Duration limit = JobDeadlines.schedulingTimeout(job, config);
    return observation.terminatingPods().stream()
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() != null)
        .filter(pod -> stuckSince(pod).plus(limit).isBefore(now))
        .findFirst()
        .map(
            pod ->
                new JobOutcome.Failed(
                    Reasons.UNSCHEDULABLE,
                    "pod %s of the job's earlier run has been terminating for more than %d s (its"
                            .formatted(pod.getMetadata().getName(), limit.toSeconds())
                        + " node may be unreachable); the job's new pods need its name"));
  }

  /**
   * When a terminating pod's wait counts from: the end of its grace period, or, for a pod on a lost
   * node, when its removal falls due, if later (a short grace period must not fail a restart that
   * the removal would let go on; whether the removal happens depends on the pod's Node).
   */
  private Instant stuckSince(Pod pod) {
    Instant graceEnd = Instant.parse(pod.getMetadata().getDeletionTimestamp());
    return LostPods.removalDelay(config)
        .flatMap(delay -> LostPods.removalDue(pod, delay))
        .filter(graceEnd::isBefore)
        .orElse(graceEnd);
  }
}
