package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What holds a job's pods back from the scheduler by design, not for want of room: scheduling gates
 * that a queue such as Kueue removes when it admits the job, or a Volcano queue that has not yet
 * admitted the job's PodGroup (Volcano then marks the pods unschedulable: "pod group is not
 * ready").
 *
 * <p>A held job waits as long as its queue makes it: neither its scheduling timeout nor its
 * start-up allowance runs. Both run from the release, which the operator records as the Queued
 * condition turning False, and not from the pods' creation: a job admitted after a long wait in its
 * queue would otherwise fail the moment it was let go.
 */
final class SchedulingHold {
  private static final String POD_SCHEDULED = "PodScheduled";

  private SchedulingHold() {}

  /** Why a job's pods are held back: Queued's reason and message. */
  record Hold(String reason, String message) {}

  /** What holds the observed pods back now; empty when nothing does. */
  static Optional<Hold> of(JobObservation observation) {
    if (observation.gangQueue().isPresent()) {
      return Optional.of(new Hold(Reasons.POD_GROUP_PENDING, observation.gangQueue().get()));
    }
    List<Pod> gated =
        observation.podsByIndex().values().stream().filter(SchedulingHold::gated).toList();
    if (gated.isEmpty()) {
      return Optional.empty();
    }
    Pod first = gated.getFirst();
    String message =
        "pod %s waits for its scheduling gates to be removed (%s)"
            .formatted(first.getMetadata().getName(), gateNames(first));
    if (gated.size() > 1) {
      message += "; and %d more pods".formatted(gated.size() - 1);
    }
    return Optional.of(new Hold(Reasons.SCHEDULING_GATED, message));
  }

  /**
   * When the job's pods were last released by their queue: now, when the status still says they are
   * held (the release is news to this reconciliation), else when Queued turned False. Empty while
   * they are held, and for a job never seen held.
   */
  static Optional<Instant> releasedAt(
      CommJobStatus status, JobObservation observation, Instant now) {
    if (of(observation).isPresent() || status == null) {
      return Optional.empty();
    }
    return ConditionList.find(status.getConditions(), Reasons.QUEUED)
        .map(
            queued ->
                ConditionList.TRUE.equals(queued.getStatus())
                        || queued.getLastTransitionTime() == null
                    ? now
                    : Instant.parse(queued.getLastTransitionTime()));
  }

  /** {@code clock} (a pod's creation, its scheduling's start), or the release if that is later. */
  static Instant notBeforeRelease(Instant clock, Optional<Instant> released) {
    return released.filter(release -> release.isAfter(clock)).orElse(clock);
  }

  /**
   * The Queued condition after a reconciliation that planned {@code outcome}: True while a run's
   * pods are held back, False once they are not. A job never seen held has none.
   */
  static Optional<Condition> condition(
      List<Condition> before,
      JobOutcome outcome,
      JobObservation observation,
      long generation,
      Instant now) {
    Optional<Hold> hold =
        outcome instanceof JobOutcome.InProgress ? of(observation) : Optional.empty();
    if (hold.isPresent()) {
      return Optional.of(
          ConditionList.next(
              before,
              Reasons.QUEUED,
              ConditionList.TRUE,
              hold.get().reason(),
              hold.get().message(),
              generation,
              now));
    }
    if (ConditionList.find(before, Reasons.QUEUED).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        ConditionList.next(
            before,
            Reasons.QUEUED,
            ConditionList.FALSE,
            Reasons.RELEASED,
            "no pod of the job is held back by a queue",
            generation,
            now));
  }

  /** Whether scheduling gates hold {@code pod} back: the scheduler does not look at it yet. */
  static boolean gated(Pod pod) {
    return "Pending".equals(JobOutcomeJudge.phaseOf(pod))
        && pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    POD_SCHEDULED.equals(c.getType())
                        && ConditionList.FALSE.equals(c.getStatus())
                        && Reasons.SCHEDULING_GATED.equals(c.getReason()));
  }

  private static String gateNames(Pod pod) {
    List<PodSchedulingGate> gates =
        pod.getSpec() == null ? null : pod.getSpec().getSchedulingGates();
    if (gates == null || gates.isEmpty()) {
      return "the gates are gone from its spec; the scheduler has not yet seen it";
    }
    return gates.stream()
        .map(PodSchedulingGate::getName)
        .filter(Objects::nonNull)
        .collect(Collectors.joining(", "));
  }
}
