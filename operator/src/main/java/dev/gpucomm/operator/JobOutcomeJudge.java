package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.NetworkExpectation;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Decides where a job stands from its status, its spec and its observed pods: invalid spec, a
 * failed rank, a deleted pod, success, timeout, unschedulable pods, or still in progress. A
 * finished job stays finished.
 */
@ApplicationScoped
public class JobOutcomeJudge {
  private static final String POD_SCHEDULED = "PodScheduled";

  /** How many failed pods a Failed message names; the others are counted. */
  static final int MAX_FAILURES = 8;

  private final SpecValidator validator;
  private final OperatorConfig config;

  @Inject
  public JobOutcomeJudge(SpecValidator validator, OperatorConfig config) {
    this.validator = validator;
    this.config = config;
  }

  /**
   * Plans a reconciliation of {@code live}: the job runs the spec it started with (from its spec
   * ConfigMap), or its live spec when it has not started.
   */
  public JobPlan plan(CommJob live, JobObservation observation, Instant now) {
    CommJob job = observation.frozenJob(live);
    Optional<JobOutcome> recorded = recordedOutcome(live.getStatus());
    if (recorded.isPresent()
        && recorded.get() instanceof JobOutcome.Failed failed
        && (failed.reason().equals(Reasons.INVALID_SPEC) || !observation.started())) {
      // a job that failed before it started (its spec, a missing gang scheduler, a refused pod
      // before any was made) has nothing to clean up and must not have its objects made now
      return new JobPlan(job, observation, failed, Optional.empty());
    }
    if (recorded.isEmpty() && !observation.started()) {
      List<String> problems = validator.problems(job);
      if (!problems.isEmpty()) {
        return new JobPlan(
            job,
            observation,
            new JobOutcome.Failed(Reasons.INVALID_SPEC, String.join("; ", problems)),
            Optional.empty());
      }
    }
    JobLayout layout = JobLayout.of(job.getSpec(), config.defaultSharedMemorySize());
    if (recorded.isEmpty() && Boolean.TRUE.equals(job.getSpec().getSuspend())) {
      // A run that finished before the suspension was seen (the operator lagging, a queue
      // preempting as the job ends) keeps its result, as a Job's completion does; suspending it
      // would delete its pods and run it again on resume.
      JobOutcome outcome =
          allPodsSucceeded(layout, observation)
              ? new JobOutcome.Succeeded()
              : new JobOutcome.Suspended();
      return new JobPlan(job, observation, outcome, Optional.of(layout));
    }
    Optional<JobOutcome.Restarting> restart = JobRestarts.underway(live.getStatus());
    if (recorded.isEmpty() && restart.isPresent() && observation.holdsRunObjects()) {
      // the failed run's pods and spec ConfigMap go first: the new run's take their names
      JobOutcome outcome =
          stuckTerminating(job, observation, now)
              .or(
                  () ->
                      JobRestarts.overdue(
                          live.getStatus(), observation, schedulingTimeout(job), now))
              .orElse(restart.get());
      return new JobPlan(job, observation, outcome, Optional.of(layout));
    }
    if (recorded.isEmpty() && !observation.started()) {
      Optional<JobOutcome> stuck = stuckTerminating(job, observation, now);
      if (stuck.isPresent()) {
        return new JobPlan(job, observation, stuck.get(), Optional.of(layout));
      }
    }
    JobOutcome outcome = recorded.orElseGet(() -> judge(job, layout, observation, now));
    if (recorded.isEmpty() && outcome instanceof JobOutcome.Failed failure) {
      outcome = JobRestarts.afterFailure(job, live.getStatus(), failure);
    }
    return new JobPlan(job, observation, outcome, Optional.of(layout));
  }

  /**
   * How often a job whose gang waits in Volcano's queue is looked at: the group's admission is no
   * event of the operator's, and the pods' new scheduling messages may come late.
   */
  static final Duration GANG_QUEUE_RECHECK = Duration.ofSeconds(30);

  /** The reasons the kubelet gives a pod's Ready=False; the node controller gives none. */
  private static final Set<String> KUBELET_NOT_READY =
      Set.of("ContainersNotReady", "ReadinessGatesNotReady", "PodCompleted");

  /**
   * How often a job whose pod waits for a node an autoscaler promised is looked at: the autoscaler
   * giving up on the node is an Event, which the operator does not watch.
   */
  static final Duration SCALE_UP_RECHECK = Duration.ofSeconds(60);

  /** How soon a restarting job whose old pods still go is looked at again without an event. */
  static final Duration RESTART_RECHECK = Duration.ofSeconds(5);

  /** The pod status reason of a pod that the kubelet ended at its activeDeadlineSeconds. */
  static final String DEADLINE_EXCEEDED = "DeadlineExceeded";

  private JobOutcome judge(CommJob job, JobLayout layout, JobObservation observation, Instant now) {
    Map<Integer, Pod> pods = observation.podsByIndex();
    boolean podsWereCreated = job.getStatus() != null && job.getStatus().getStartTime() != null;
    // the pod that failed first comes first: the others' ranks often fail because it did
    List<Map.Entry<Integer, Pod>> failed =
        pods.entrySet().stream()
            .filter(
                e -> e.getKey() < layout.podCount() && "Failed".equals(rankPhaseOf(e.getValue())))
            .sorted(
                Comparator.comparing(
                    (Map.Entry<Integer, Pod> e) -> PodFailureDescriber.finishedAt(e.getValue())))
            .toList();
    if (!failed.isEmpty()) {
      List<String> failures =
          failed.stream()
              .map(
                  e ->
                      "pod %s (%s) failed: %s"
                          .formatted(
                              e.getValue().getMetadata().getName(),
                              layout.ranksOf(e.getKey()),
                              PodFailureDescriber.describe(e.getValue())))
              .toList();
      boolean transport =
          failures.stream().anyMatch(f -> f.contains(NetworkExpectation.FAILURE_PREFIX));
      boolean disruption = disrupted(job, layout, observation, podsWereCreated);
      // a failure already told (a transport, a pod taken away, a run past its timeout) needs no
      // wait for a lost node's story
      boolean waitMayTell =
          !transport
              && !disruption
              && observation
                  .runningTime(job)
                  .map(running -> timeLeft(running, layout.timeoutSeconds(), now).isPositive())
                  .orElse(true);
      if (waitMayTell) {
        Optional<JobOutcome> nodeLoss = nodeLoss(layout, observation, failed, failures, now);
        if (nodeLoss.isPresent()) {
          return nodeLoss.get();
        }
      }
      // the kubelet ended the first pod at its own deadline: the operator was away at the job's
      // timeout (pods it ended later, beside a rank that crashed first, are not the story)
      Pod first = failed.getFirst().getValue();
      boolean pastDeadline =
          first.getStatus() != null && DEADLINE_EXCEEDED.equals(first.getStatus().getReason());
      Optional<RestartCause> restartableAs =
          transport
              ? Optional.empty()
              : Optional.of(
                  pastDeadline
                      ? RestartCause.TIMEOUT
                      : disruption ? RestartCause.DISRUPTION : RestartCause.RANK_FAILED);
      return new JobOutcome.Failed(
          transport
              ? Reasons.UNEXPECTED_TRANSPORT
              : pastDeadline ? Reasons.TIMEOUT : Reasons.RANK_FAILED,
          firstOf(failures),
          restartableAs);
    }
    if (podsWereCreated && succeededThoughAPodIsGone(job, layout, observation)) {
      return new JobOutcome.Succeeded();
    }
    for (int index = 0; podsWereCreated && index < layout.podCount(); index++) {
      if (!pods.containsKey(index)) {
        // past the deadline, the operator deleted the pods itself: when the status patch that
        // recorded the timeout was lost, the pods' absence is still that timeout
        Optional<JobOutcome> timedOut = timedOut(job, layout, observation, now);
        if (timedOut.isPresent()) {
          return timedOut.get();
        }
        String name = JobNames.of(job).pod(index);
        String why =
            observation.terminatingPods().stream()
                .filter(pod -> name.equals(pod.getMetadata().getName()))
                .flatMap(pod -> PodFailureDescriber.disruption(pod).stream())
                .map(disruption -> " (" + disruption + ")")
                .findFirst()
                .orElse("");
        return new JobOutcome.Failed(
            Reasons.POD_DELETED,
            "pod %s (%s) was deleted before the job finished%s; a rank cannot rejoin a running job"
                .formatted(name, layout.ranksOf(index), why),
            Optional.of(RestartCause.DISRUPTION));
      }
    }
    if (allPodsSucceeded(layout, observation)) {
      return new JobOutcome.Succeeded();
    }
    return deadlines(job, layout, observation, now);
  }

  /**
   * The verdict on a run some of whose pods failed while another still shows Running. A node that
   * stops answering leaves its pod Running: its peers fail within seconds on its silence, and the
   * node controller marks the pod NotReady only after its grace period (40-50 s). So the verdict
   * waits, up to the node-loss grace after the first failure, for the pods still Running to end as
   * well (their ranks fail on the first's) or for one of them to show its node lost: then that is
   * the run's story, a disruption, and not its peers' failures. Empty to judge the failures.
   */
  private Optional<JobOutcome> nodeLoss(
      JobLayout layout,
      JobObservation observation,
      List<Map.Entry<Integer, Pod>> failed,
      List<String> failures,
      Instant now) {
    List<Map.Entry<Integer, Pod>> stillRunning =
        observation.podsByIndex().entrySet().stream()
            .filter(
                e -> e.getKey() < layout.podCount() && "Running".equals(rankPhaseOf(e.getValue())))
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
                      firstOf(failures)),
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

  /**
   * Whether a pod of this run was taken away while its ranks failed: one evicted by its kubelet for
   * the node's sake or preempted (its DisruptionTarget condition, or an Evicted reason), or one
   * deleted, gone or going. The peers' ranks failing on its silence are part of the same story, and
   * often come first: an operator away during a drain finds the drained pod gone and the others
   * failed. A pod evicted for its own limits (its /dev/shm, its ephemeral storage) would be evicted
   * again: that is its ranks' failure.
   */
  private static boolean disrupted(
      CommJob job, JobLayout layout, JobObservation observation, boolean podsWereCreated) {
    Map<Integer, Pod> pods = observation.podsByIndex();
    boolean podGone =
        podsWereCreated
            && IntStream.range(0, layout.podCount()).anyMatch(index -> !pods.containsKey(index));
    String attempt = Integer.toString(JobRestarts.made(job.getStatus()));
    List<Pod> goingOfThisRun =
        observation.terminatingPods().stream().filter(pod -> ofRun(pod, layout, attempt)).toList();
    return podGone
        || !goingOfThisRun.isEmpty()
        || Stream.concat(pods.values().stream(), goingOfThisRun.stream())
            .anyMatch(JobOutcomeJudge::takenAway);
  }

  /** Whether the pod is one of the run {@code attempt}'s pods {@code 0 .. podCount-1}. */
  private static boolean ofRun(Pod pod, JobLayout layout, String attempt) {
    Map<String, String> labels =
        Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
    String index = labels.getOrDefault(JobNames.POD_INDEX_LABEL, "");
    return index.matches("\\d{1,6}")
        && Integer.parseInt(index) < layout.podCount()
        && attempt.equals(labels.getOrDefault(JobNames.RESTART_ATTEMPT_LABEL, attempt));
  }

  private static boolean takenAway(Pod pod) {
    Optional<String> disruption = PodFailureDescriber.disruption(pod);
    String evictedFor =
        pod.getStatus() != null && "Evicted".equals(pod.getStatus().getReason())
            ? Objects.requireNonNullElse(pod.getStatus().getMessage(), "")
            : null;
    return (disruption.isPresent() && !forItsOwnLimits(disruption.get()))
        || (evictedFor != null && !forItsOwnLimits(evictedFor));
  }

  /** The kubelet's words for an eviction over the pod's own limits, not the node's pressure. */
  private static boolean forItsOwnLimits(String message) {
    return message.contains("exceeds the limit")
        || message.contains("exceeds the total limit")
        || message.contains("exceeded its local ephemeral storage limit");
  }

  /**
   * Whether a run whose pod went after its ranks finished succeeded all the same: every pod still
   * here succeeded, and rank 0 published this run's report, which it does only once every rank's
   * results are in. A node drained, or a pod deleted, as the job ends would otherwise restart (or
   * fail) a run that is done.
   */
  private static boolean succeededThoughAPodIsGone(
      CommJob job, JobLayout layout, JobObservation observation) {
    Map<Integer, Pod> pods = observation.podsByIndex();
    boolean podGone = IntStream.range(0, layout.podCount()).anyMatch(i -> !pods.containsKey(i));
    boolean othersSucceeded =
        IntStream.range(0, layout.podCount())
            .filter(pods::containsKey)
            .allMatch(i -> "Succeeded".equals(rankPhaseOf(pods.get(i))));
    // stamped with this run: an unstamped report (an older runtime's) cannot vouch for the run
    OptionalInt run = OptionalInt.of(JobRestarts.made(job.getStatus()));
    boolean reportOfThisRun =
        observation
            .results()
            .filter(results -> ReportRun.of(results).equals(run))
            .map(ConfigMap::getData)
            .filter(data -> data.get(CommJobResultsConfigMapDependentResource.REPORT_JSON) != null)
            .isPresent();
    return podGone && othersSucceeded && reportOfThisRun;
  }

  private static boolean allPodsSucceeded(JobLayout layout, JobObservation observation) {
    Map<Integer, Pod> pods = observation.podsByIndex();
    for (int index = 0; index < layout.podCount(); index++) {
      if (!pods.containsKey(index) || !"Succeeded".equals(rankPhaseOf(pods.get(index)))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The first failures in full and a count of the rest: a fabric fault can fail thousands of pods
   * at once, and their messages together would not fit a status update (etcd takes 1.5 MiB).
   */
  private static String firstOf(List<String> failures) {
    String shown = String.join("; ", failures.subList(0, Math.min(failures.size(), MAX_FAILURES)));
    int more = failures.size() - MAX_FAILURES;
    return more > 0 ? shown + "; and %d more pods failed".formatted(more) : shown;
  }

  private JobOutcome deadlines(
      CommJob job, JobLayout layout, JobObservation observation, Instant now) {
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
    Duration limit = schedulingTimeout(job);
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
  private Optional<JobOutcome> stuckTerminating(
      CommJob job, JobObservation observation, Instant now) {
    Duration limit = schedulingTimeout(job);
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

  /** spec.schedulingTimeoutSeconds, else the operator's default. */
  private Duration schedulingTimeout(CommJob job) {
    Integer seconds = job.getSpec().getSchedulingTimeoutSeconds();
    return seconds == null ? config.unschedulableTimeout() : Duration.ofSeconds(seconds);
  }

  /**
   * When the operator must look at an unfinished job again even if nothing changes: at its timeout
   * (counted from the running time the status now records) or at a pod's scheduling deadline,
   * whichever comes first. Its own pod creations trigger no reconciliation.
   */
  public Optional<Duration> nextCheck(JobPlan plan, CommJobStatus status, Instant now) {
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
   * The Timeout verdict once spec.timeoutSeconds have passed since all pods were running: time
   * spent queued, scheduling or pulling images does not count. Pods that never all run (an image
   * that never arrives, a container that never starts) time out spec.timeoutSeconds +
   * spec.schedulingTimeoutSeconds after they were created, or after their queue released them; not
   * while it holds them back (see {@link SchedulingHold}).
   */
  private Optional<JobOutcome> timedOut(
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
                  .formatted(layout.timeoutSeconds(), podCounts(observation.podsByIndex(), layout)),
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
                + podCounts(observation.podsByIndex(), layout)
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
            .map(JobOutcomeJudge::placedAt)
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

  private static Duration timeLeft(Instant start, long seconds, Instant now) {
    return Duration.between(now, start.plusSeconds(seconds));
  }

  /** A finished job's recorded outcome: finished jobs never change their verdict. */
  static Optional<JobOutcome> recordedOutcome(CommJobStatus status) {
    if (status == null || status.getPhase() == null) {
      return Optional.empty();
    }
    if (status.getPhase() == Phase.SUCCEEDED) {
      return Optional.of(new JobOutcome.Succeeded());
    }
    if (status.getPhase() == Phase.FAILED) {
      Optional<Condition> failed = ConditionList.find(status.getConditions(), Reasons.FAILED);
      return Optional.of(
          new JobOutcome.Failed(
              failed.map(Condition::getReason).orElse(Reasons.JOB_FAILED),
              failed.map(Condition::getMessage).orElse("")));
    }
    return Optional.empty();
  }

  private static Optional<PodCondition> unscheduled(Pod pod) {
    if (!"Pending".equals(phaseOf(pod))
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
