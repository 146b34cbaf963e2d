package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The clocks of a job that has not finished: its timeout once all pods run, the start-up allowance
 * of pods that never all run, each pod's scheduling timeout (longer while a node autoscaler brings
 * its node), and a scheduled pod whose container never starts. Says when the job must be looked at
 * again when nothing else brings it back.
 */
final class JobDeadlines {
  private static final String POD_SCHEDULED = "PodScheduled";

  /**
   * How often a job whose gang waits in Volcano's queue is looked at: the group's admission is no
   * event of the operator's, and the pods' new scheduling messages may come late.
   */
  static final Duration GANG_QUEUE_RECHECK = Duration.ofSeconds(30);

  /**
   * How often a job whose pod waits for a node an autoscaler promised is looked at: the autoscaler
   * giving up on the node is an Event, which the operator does not watch.
   */
  static final Duration SCALE_UP_RECHECK = Duration.ofSeconds(60);

  /** How soon a restarting job whose old pods still go is looked at again without an event. */
  static final Duration RESTART_RECHECK = Duration.ofSeconds(5);

  private final OperatorConfig config;

  JobDeadlines(OperatorConfig config) {
    this.config = config;
  }

  /**
   * When the operator must look at an unfinished job again even if nothing changes: at its timeout
   * (counted from the running time the status now records) or at a pod's scheduling deadline,
   * whichever comes first. Its own pod creations trigger no reconciliation.
   */
  Optional<Duration> nextCheck(JobPlan plan, CommJobStatus status, Instant now) {
    if (plan.outcome() instanceof JobOutcome.Restarting) {
      // the old pods' deletions bring the job back; a pod whose node does not answer brings none
      return Optional.of(RESTART_RECHECK);
    }
    if (!(plan.outcome() instanceof JobOutcome.InProgress inProgress) || plan.layout().isEmpty()) {
      return Optional.empty();
    }
    JobLayout layout = plan.layout().get();
    // while a queue holds the pods back the start-up allowance does not run out (see timedOut);
    // a gate's removal is a pod event, which brings the job back by itself, but a PodGroup's
    // admission is not one the operator watches
    Optional<SchedulingHold.Hold> hold = SchedulingHold.holding(status, plan.observation());
    Optional<Instant> released = SchedulingHold.releasedAt(status, plan.observation(), now);
    Optional<Duration> timeout =
        status.getRunningTime() != null
            ? Optional.of(
                timeLeft(Instant.parse(status.getRunningTime()), layout.timeoutSeconds(), now))
            : Optional.ofNullable(status.getStartTime())
                .filter(created -> hold.isEmpty())
                .map(Instant::parse)
                .map(created -> SchedulingHold.notBeforeRelease(created, released))
                .map(
                    created ->
                        Duration.between(
                            now,
                            startupDeadline(plan.job(), layout, created, plan.observation(), now)
                                .at()));
    Optional<Duration> queueRecheck =
        hold.map(SchedulingHold.Hold::reason)
            .filter(Reasons.POD_GROUP_PENDING::equals)
            .map(reason -> GANG_QUEUE_RECHECK);
    return Stream.of(timeout, inProgress.recheckAfter(), queueRecheck)
        .flatMap(Optional::stream)
        .min(Comparator.naturalOrder())
        .map(wait -> wait.isNegative() ? Duration.ZERO : wait);
  }

  /**
   * The verdict on a run none of whose pods failed and that has not succeeded: timed out, a pod
   * that could not be scheduled or started in time, or in progress with when to look again.
   */
  JobOutcome outcome(CommJob job, JobLayout layout, JobObservation observation, Instant now) {
    Duration recheck = null;
    Optional<JobOutcome> timedOut = timedOut(job, layout, observation, now);
    if (timedOut.isPresent()) {
      return timedOut.get();
    }
    // a queue holding the gang back marks its pods unschedulable (Volcano's "pod group is not
    // ready") while they wait their turn: their scheduling clock runs from the release. A gated
    // pod is no refusal of the scheduler's either (see unscheduled), but its peers may be.
    boolean gangQueued =
        SchedulingHold.holding(job.getStatus(), observation)
            .filter(hold -> hold.reason().equals(Reasons.POD_GROUP_PENDING))
            .isPresent();
    Optional<Instant> released = SchedulingHold.releasedAt(job.getStatus(), observation, now);
    Optional<String> waitingForNode = Optional.empty();
    for (Map.Entry<Integer, Pod> entry : observation.podsByIndex().entrySet()) {
      Optional<PodCondition> unscheduled = unscheduled(entry.getValue());
      if (unscheduled.isEmpty() || gangQueued) {
        continue;
      }
      Instant since =
          SchedulingHold.notBeforeRelease(
              since(unscheduled.get(), entry.getValue(), now), released);
      Duration schedulingTimeout = schedulingTimeout(job);
      Duration left = Duration.between(now, since.plus(schedulingTimeout));
      Optional<NodeProvisioning.Word> autoscaler = Optional.empty();
      Instant waitEnds = since.plus(schedulingTimeout).plus(config.scaleUpTimeout());
      if (!left.isPositive() && config.scaleUpTimeout().isPositive()) {
        // a node an autoscaler is bringing for the pod may take longer than scheduling would; its
        // word is read after the deadline, so that no word kept from before ends the wait
        autoscaler =
            observation.nodeProvisioning().on(entry.getValue(), since.plus(schedulingTimeout));
        Optional<Duration> nodeWaitLeft =
            autoscaler
                .filter(NodeProvisioning.Word::promisesANode)
                .map(word -> Duration.between(now, nodeWaitEnds(word, waitEnds)));
        if (nodeWaitLeft.isPresent() && nodeWaitLeft.get().isPositive()) {
          // an autoscaler's change of mind is only an Event, which brings no reconciliation
          left =
              nodeWaitLeft.get().compareTo(SCALE_UP_RECHECK) < 0
                  ? nodeWaitLeft.get()
                  : SCALE_UP_RECHECK;
          if (waitingForNode.isEmpty()) {
            waitingForNode =
                Optional.of(
                    "pod %s (%s) waits for the node its autoscaler is bringing, until %s (%s)"
                        .formatted(
                            entry.getValue().getMetadata().getName(),
                            layout.ranksOf(entry.getKey()),
                            nodeWaitEnds(autoscaler.get(), waitEnds),
                            autoscaler.get().inWords()));
          }
        }
      }
      if (!left.isPositive()) {
        return new JobOutcome.Failed(
            Reasons.UNSCHEDULABLE,
            "pod %s (%s) could not be scheduled within %d s%s: %s"
                .formatted(
                    entry.getValue().getMetadata().getName(),
                    layout.ranksOf(entry.getKey()),
                    schedulingTimeout.toSeconds(),
                    autoscaler
                        .map(
                            word ->
                                word.promisesANode()
                                    ? ", nor within %d s of its node autoscaler's word (%s)"
                                        .formatted(
                                            config.scaleUpTimeout().toSeconds(), word.inWords())
                                    : " (%s)".formatted(word.inWords()))
                        .orElse(""),
                    PodFailureDescriber.lastLine(
                        Objects.requireNonNullElse(
                            unscheduled.get().getMessage(), unscheduled.get().getReason()))));
      }
      recheck = recheck == null || left.compareTo(recheck) < 0 ? left : recheck;
    }
    for (Map.Entry<Integer, Pod> entry : observation.podsByIndex().entrySet()) {
      Optional<ContainerStall> stall = ContainerStall.of(entry.getValue());
      if (stall.isEmpty()) {
        continue;
      }
      Duration schedulingTimeout = schedulingTimeout(job);
      Duration left =
          stall.get().permanent()
              ? Duration.ZERO
              : Duration.between(now, stall.get().since().plus(schedulingTimeout));
      if (!left.isPositive()) {
        String pod = entry.getValue().getMetadata().getName();
        String ranks = layout.ranksOf(entry.getKey());
        return new JobOutcome.Failed(
            Reasons.CONTAINER_NOT_STARTED,
            stall.get().permanent()
                ? "pod %s (%s) cannot start: %s".formatted(pod, ranks, stall.get().inFull())
                : "pod %s (%s) could not start within %d s of being scheduled (spec.schedulingTimeoutSeconds): %s"
                    .formatted(pod, ranks, schedulingTimeout.toSeconds(), stall.get().inFull()));
      }
      recheck = recheck == null || left.compareTo(recheck) < 0 ? left : recheck;
    }
    return new JobOutcome.InProgress(Optional.ofNullable(recheck), waitingForNode);
  }

  /**
   * The Timeout verdict once spec.timeoutSeconds have passed since all pods were running: time
   * spent queued, scheduling or pulling images does not count. Pods that never all run (an image
   * that never arrives, a container that never starts) time out spec.timeoutSeconds +
   * spec.schedulingTimeoutSeconds after they were created, or after their queue released them; not
   * while it holds them back (see {@link SchedulingHold}).
   */
  Optional<JobOutcome> timedOut(
      CommJob job, JobLayout layout, JobObservation observation, Instant now) {
    Optional<Instant> running = observation.runningTime(job);
    if (running.isPresent()) {
      if (timeLeft(running.get(), layout.timeoutSeconds(), now).isPositive()) {
        return Optional.empty();
      }
      return Optional.of(
          new JobOutcome.Failed(
              Reasons.TIMEOUT,
              "not finished after %d s (spec.timeoutSeconds): %s"
                  .formatted(
                      layout.timeoutSeconds(),
                      PodPhases.podCounts(observation.podsByIndex(), layout)),
              Optional.of(RestartCause.TIMEOUT)));
    }
    Optional<Instant> created = observation.startTime(job);
    long allowance = startupAllowance(job, layout);
    if (created.isEmpty() && !observation.started()) {
      return refusedTooLong(job, allowance, now);
    }
    if (created.isEmpty() || SchedulingHold.holding(job.getStatus(), observation).isPresent()) {
      return Optional.empty();
    }
    Optional<Instant> released = SchedulingHold.releasedAt(job.getStatus(), observation, now);
    Instant clock = SchedulingHold.notBeforeRelease(created.get(), released);
    StartupDeadline deadline = startupDeadline(job, layout, clock, observation, now);
    if (deadline.at().isAfter(now)) {
      return Optional.empty();
    }
    String allowed =
        deadline.lastPlaced().isPresent()
            ? "%d s (spec.timeoutSeconds) after the last of them was placed on a node, at %s"
                .formatted(layout.timeoutSeconds(), deadline.lastPlaced().get())
            : "%d s after %s (spec.timeoutSeconds + spec.schedulingTimeoutSeconds)"
                .formatted(
                    allowance,
                    clock.equals(created.get())
                        ? "they were created"
                        : "their queue released them");
    return Optional.of(
        new JobOutcome.Failed(
            Reasons.TIMEOUT,
            "pods not all running "
                + allowed
                + ": "
                + PodPhases.podCounts(observation.podsByIndex(), layout)
                + lastRefusal(job)));
  }

  /**
   * When a pod's wait for the node {@code promise} says is coming ends: the scale-up timeout after
   * the promise, and no later than {@code cap}, the scale-up timeout after the pod's scheduling
   * deadline, however often the autoscaler gave up and promised again.
   */
  private Instant nodeWaitEnds(NodeProvisioning.Word promise, Instant cap) {
    Instant end = promise.since().plus(config.scaleUpTimeout());
    return end.isBefore(cap) ? end : cap;
  }

  /**
   * When pods that never all run time out, and, where it is later than the start-up allowance, when
   * the last of them was placed on a node.
   */
  private record StartupDeadline(Instant at, Optional<Instant> lastPlaced) {}

  /**
   * The start-up allowance after {@code clock}. Where a node autoscaler brings pods their nodes
   * (the scale-up timeout lets them wait past their scheduling timeout), no sooner than
   * spec.timeoutSeconds after the last pod was placed, so that a pod placed late has the time to
   * pull its image and start that the allowance leaves the others; nor while a pod still waits for
   * the node an autoscaler promised it, and spec.timeoutSeconds after that wait ends.
   */
  private StartupDeadline startupDeadline(
      CommJob job, JobLayout layout, Instant clock, JobObservation observation, Instant now) {
    Instant allowed = clock.plusSeconds(startupAllowance(job, layout));
    if (allowed.isAfter(now) || !config.scaleUpTimeout().isPositive()) {
      return new StartupDeadline(allowed, Optional.empty());
    }
    Collection<Pod> pods = observation.podsByIndex().values();
    Optional<Instant> lastPlaced =
        pods.stream()
            .map(JobDeadlines::placedAt)
            .flatMap(Optional::stream)
            .max(Comparator.naturalOrder());
    Optional<Instant> released = SchedulingHold.releasedAt(job.getStatus(), observation, now);
    Duration schedulingTimeout = schedulingTimeout(job);
    Optional<Instant> nodeWaitEnds = Optional.empty();
    for (Pod pod : pods) {
      Optional<PodCondition> unscheduled = unscheduled(pod);
      if (unscheduled.isEmpty()) {
        continue;
      }
      Instant since = SchedulingHold.notBeforeRelease(since(unscheduled.get(), pod, now), released);
      Instant cap = since.plus(schedulingTimeout).plus(config.scaleUpTimeout());
      Optional<Instant> ends =
          observation
              .nodeProvisioning()
              .on(pod)
              .filter(NodeProvisioning.Word::promisesANode)
              .map(promise -> nodeWaitEnds(promise, cap));
      if (ends.isPresent() && (nodeWaitEnds.isEmpty() || ends.get().isAfter(nodeWaitEnds.get()))) {
        nodeWaitEnds = ends;
      }
    }
    Instant deadline = allowed;
    Optional<Instant> placedLate = Optional.empty();
    if (lastPlaced.isPresent()
        && lastPlaced.get().plusSeconds(layout.timeoutSeconds()).isAfter(deadline)) {
      deadline = lastPlaced.get().plusSeconds(layout.timeoutSeconds());
      placedLate = lastPlaced;
    }
    if (nodeWaitEnds.isPresent()
        && nodeWaitEnds.get().plusSeconds(layout.timeoutSeconds()).isAfter(deadline)) {
      deadline = nodeWaitEnds.get().plusSeconds(layout.timeoutSeconds());
      placedLate = Optional.empty();
    }
    return new StartupDeadline(deadline, placedLate);
  }

  /** When the scheduler placed {@code pod} on a node, where it says. */
  private static Optional<Instant> placedAt(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> POD_SCHEDULED.equals(c.getType()) && "True".equals(c.getStatus()))
        .findFirst()
        .flatMap(c -> instant(c.getLastTransitionTime()));
  }

  /**
   * A run whose objects the API server keeps refusing (its spec ConfigMap or gang PodGroup, by a
   * quota, an admission webhook, a queue that does not exist) times out as pods that never all run
   * do: the start-up allowance after the run was wanted and the operator was refused, naming the
   * last refusal. A job the operator has not yet tried to start (the operator away, a backlog) is
   * not timed out.
   */
  private static Optional<JobOutcome> refusedTooLong(CommJob job, long allowance, Instant now) {
    Optional<Instant> refusedSince =
        ConditionList.find(
                job.getStatus() == null ? null : job.getStatus().getConditions(), Reasons.READY)
            .filter(ready -> Reasons.RECONCILE_ERROR.equals(ready.getReason()))
            .flatMap(ready -> instant(ready.getLastTransitionTime()));
    if (refusedSince.isEmpty()) {
      return Optional.empty();
    }
    Instant wanted =
        runWantedSince(job)
            .filter(since -> since.isAfter(refusedSince.get()))
            .orElse(refusedSince.get());
    if (timeLeft(wanted, allowance, now).isPositive()) {
      return Optional.empty();
    }
    return Optional.of(
        new JobOutcome.Failed(
            Reasons.TIMEOUT,
            "the job's objects not all made %d s after it started (spec.timeoutSeconds +"
                    .formatted(allowance)
                + " spec.schedulingTimeoutSeconds)"
                + lastRefusal(job)));
  }

  /**
   * When the current run was wanted: the job's creation, its last resume (Suspended turning False),
   * or the start of the run after its last restart (Restarting turning False), whichever is last.
   */
  private static Optional<Instant> runWantedSince(CommJob job) {
    Optional<Instant> since = instant(job.getMetadata().getCreationTimestamp());
    List<Condition> conditions =
        job.getStatus() == null || job.getStatus().getConditions() == null
            ? List.of()
            : job.getStatus().getConditions();
    for (Condition condition : conditions) {
      if ((Reasons.SUSPENDED.equals(condition.getType())
              || Reasons.RESTARTING.equals(condition.getType()))
          && ConditionList.FALSE.equals(condition.getStatus())) {
        Optional<Instant> transition = instant(condition.getLastTransitionTime());
        if (transition.isPresent() && (since.isEmpty() || transition.get().isAfter(since.get()))) {
          since = transition;
        }
      }
    }
    return since;
  }

  private static Optional<Instant> instant(String timestamp) {
    if (timestamp == null || timestamp.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(timestamp));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * The operator's last failed reconciliation, which the Ready condition holds while it retries:
   * most often the API server refusing a pod (a quota, an admission webhook), why pods never all
   * ran.
   */
  private static String lastRefusal(CommJob job) {
    if (job.getStatus() == null) {
      return "";
    }
    return ConditionList.find(job.getStatus().getConditions(), Reasons.READY)
        .filter(ready -> Reasons.RECONCILE_ERROR.equals(ready.getReason()))
        .map(ready -> "; the last reconcile error: " + ready.getMessage())
        .orElse("");
  }

  /** How long pods may take from creation to all running: the run's timeout and scheduling's. */
  private long startupAllowance(CommJob job, JobLayout layout) {
    return layout.timeoutSeconds() + schedulingTimeout(job).toSeconds();
  }

  static Duration timeLeft(Instant start, long seconds, Instant now) {
    return Duration.between(now, start.plusSeconds(seconds));
  }

  /** spec.schedulingTimeoutSeconds, else the operator's default. */
  Duration schedulingTimeout(CommJob job) {
    return schedulingTimeout(job, config);
  }

  static Duration schedulingTimeout(CommJob job, OperatorConfig config) {
    Integer seconds = job.getSpec().getSchedulingTimeoutSeconds();
    return seconds == null ? config.unschedulableTimeout() : Duration.ofSeconds(seconds);
  }

  private static Optional<PodCondition> unscheduled(Pod pod) {
    if (!"Pending".equals(PodPhases.phaseOf(pod))
        || pod.getStatus() == null
        || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    // A pod held back by scheduling gates (a queue such as Kueue admitting it later) is waiting by
    // design, not refused by the scheduler.
    return pod.getStatus().getConditions().stream()
        .filter(c -> POD_SCHEDULED.equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> !Reasons.SCHEDULING_GATED.equals(c.getReason()))
        .findFirst();
  }

  private static Instant since(PodCondition condition, Pod pod, Instant now) {
    String text = condition.getLastTransitionTime();
    if (text == null || text.isEmpty()) {
      text = pod.getMetadata().getCreationTimestamp();
    }
    return text == null || text.isEmpty() ? now : Instant.parse(text);
  }
}
