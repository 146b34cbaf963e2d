package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What holds a run's pods back from the scheduler by design, not for want of room: scheduling gates
 * that a queue such as Kueue removes when it admits the job, or a Volcano queue that has not yet
 * admitted the job's PodGroup (Volcano then marks the pods unschedulable: "pod group is not
 * ready").
 *
 * <p>Until its queue first releases it, a run waits as long as the queue makes it: neither its
 * scheduling timeout nor its start-up allowance runs. Both run from that release, which the
 * operator records as the Queued condition turning False, and not from the pods' creation: a run
 * admitted after a long wait would otherwise fail the moment it was let go. A queue that takes the
 * run back after releasing it (Volcano sends a gang it cannot place back to its queue) stops no
 * clock: otherwise a gang that never fits would be admitted and sent back for ever.
 */
final class SchedulingHold {
  private static final String POD_SCHEDULED = "PodScheduled";

  private SchedulingHold() {}

  /** Why a run's pods are held back: Queued's reason and message. */
  record Hold(String reason, String message) {}

  /**
   * What holds the run's pods back now, before its first release; empty when nothing does, or when
   * its queue released it before.
   */
  static Optional<Hold> holding(CommJobStatus status, JobObservation observation) {
    return releasedThisRun(status, observation).isPresent() ? Optional.empty() : seen(observation);
  }

  /**
   * When the run's pods were first released by their queue: when Queued turned False in this run,
   * or now, when the status still says they are held and they are not (the release is news to this
   * reconciliation). Empty while they are held, and for a run never seen held.
   */
  static Optional<Instant> releasedAt(
      CommJobStatus status, JobObservation observation, Instant now) {
    Optional<Instant> recorded = releasedThisRun(status, observation);
    if (recorded.isPresent()) {
      return recorded;
    }
    return releaseUnrecorded(status, observation) ? Optional.of(now) : Optional.empty();
  }

  /** Whether the status says the run is held and it is not: the release is yet to be recorded. */
  static boolean releaseUnrecorded(CommJobStatus status, JobObservation observation) {
    return queued(status)
            .filter(queued -> ConditionList.TRUE.equals(queued.getStatus()))
            .isPresent()
        && seen(observation).isEmpty();
  }

  /**
   * Whether the status says a gang scheduler's queue holds the run (Queued=True, PodGroupPending).
   */
  static boolean heldByItsQueue(CommJobStatus status) {
    return queued(status)
        .filter(queued -> ConditionList.TRUE.equals(queued.getStatus()))
        .filter(queued -> Reasons.POD_GROUP_PENDING.equals(queued.getReason()))
        .isPresent();
  }

  /** {@code clock} (a pod's creation, its scheduling's start), or the release if that is later. */
  static Instant notBeforeRelease(Instant clock, Optional<Instant> released) {
    return released.filter(release -> release.isAfter(clock)).orElse(clock);
  }

  /**
   * The Queued condition after a reconciliation that found {@code status}, planned {@code outcome}
   * from {@code planned} and left {@code after}: True while the run waits for its first release,
   * False from then on. A job never seen held has none.
   */
  static Optional<Condition> condition(
      CommJobStatus status,
      JobOutcome outcome,
      JobObservation planned,
      JobObservation after,
      long generation,
      Instant now) {
    List<Condition> before = status == null ? null : status.getConditions();
    Optional<Condition> previous = queued(status);
    if (!(outcome instanceof JobOutcome.InProgress)) {
      // suspended, restarting or finished: no run waits; the next one is judged afresh
      return previous.map(
          queued ->
              ConditionList.TRUE.equals(queued.getStatus())
                  ? ConditionList.next(
                      before,
                      Reasons.QUEUED,
                      ConditionList.FALSE,
                      Reasons.RUN_ENDED,
                      "the run held back by its queue ended before its release",
                      generation,
                      now)
                  : queued);
    }
    if (releasedThisRun(status, planned).isPresent()) {
      return previous;
    }
    // the pods this reconciliation made may already show their gates
    Optional<Hold> hold = seen(planned).or(() -> seen(after));
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
    if (previous.isEmpty() || !ConditionList.TRUE.equals(previous.get().getStatus())) {
      return previous;
    }
    return Optional.of(
        ConditionList.next(
            before,
            Reasons.QUEUED,
            ConditionList.FALSE,
            Reasons.RELEASED,
            "the queue released the pods: the scheduling timeout and the start-up allowance run"
                + " from here",
            generation,
            now));
  }

  /** Whether scheduling gates hold {@code pod} back: the scheduler does not look at it yet. */
  static boolean gated(Pod pod) {
    if (!"Pending".equals(PodPhases.phaseOf(pod))) {
      return false;
    }
    boolean gates =
        pod.getSpec() != null
            && pod.getSpec().getSchedulingGates() != null
            && !pod.getSpec().getSchedulingGates().isEmpty();
    boolean gatedCondition =
        pod.getStatus() != null
            && pod.getStatus().getConditions() != null
            && pod.getStatus().getConditions().stream()
                .anyMatch(
                    c ->
                        POD_SCHEDULED.equals(c.getType())
                            && ConditionList.FALSE.equals(c.getStatus())
                            && Reasons.SCHEDULING_GATED.equals(c.getReason()));
    return gates || gatedCondition;
  }

  /** What holds the observed pods back, released before or not. */
  private static Optional<Hold> seen(JobObservation observation) {
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
   * How much earlier than the run's pods a release of this run may be recorded: the run's start is
   * the API server's clock, the release the operator's.
   */
  private static final Duration CLOCK_SKEW = Duration.ofSeconds(5);

  /**
   * When Queued turned False in this run: a release recorded before this run's pods were created
   * (by more than the clocks' skew) was an earlier run's.
   */
  private static Optional<Instant> releasedThisRun(
      CommJobStatus status, JobObservation observation) {
    Optional<Instant> runStart = observation.startTime(status).map(t -> t.minus(CLOCK_SKEW));
    return queued(status)
        .filter(queued -> ConditionList.FALSE.equals(queued.getStatus()))
        .map(Condition::getLastTransitionTime)
        .filter(time -> time != null && !time.isEmpty())
        .map(Instant::parse)
        .filter(released -> runStart.isPresent() && !released.isBefore(runStart.get()));
  }

  private static Optional<Condition> queued(CommJobStatus status) {
    return status == null
        ? Optional.empty()
        : ConditionList.find(status.getConditions(), Reasons.QUEUED);
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
