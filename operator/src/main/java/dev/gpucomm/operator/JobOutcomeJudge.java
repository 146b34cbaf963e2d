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
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Decides where a job stands from its status, its spec and its observed pods: invalid spec, a
 * failed rank, a deleted pod, success, timeout, unschedulable pods, or still in progress. A
 * finished job stays finished.
 */
@ApplicationScoped
public class JobOutcomeJudge {

  /** How many failed pods a Failed message names; the others are counted. */
  static final int MAX_FAILURES = 8;

  private final SpecValidator validator;
  private final OperatorConfig config;
  private final JobDeadlines deadlines;
  private final NodeLoss nodeLoss;
  private final PredecessorWaits predecessors;

  @Inject
  public JobOutcomeJudge(SpecValidator validator, OperatorConfig config) {
    this.validator = validator;
    this.config = config;
    this.deadlines = new JobDeadlines(config);
    this.nodeLoss = new NodeLoss(config);
    this.predecessors = new PredecessorWaits(config);
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
          predecessors
              .stuckTerminating(job, observation, now)
              .or(
                  () ->
                      JobRestarts.overdue(
                          live.getStatus(), observation, deadlines.schedulingTimeout(job), now))
              .orElse(restart.get());
      return new JobPlan(job, observation, outcome, Optional.of(layout));
    }
    if (recorded.isEmpty() && !observation.started()) {
      Optional<JobOutcome> stuck = predecessors.stuckTerminating(job, observation, now);
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
   * When the operator must look at an unfinished job again even if nothing changes (see {@link
   * JobDeadlines#nextCheck}).
   */
  public Optional<Duration> nextCheck(JobPlan plan, CommJobStatus status, Instant now) {
    return deadlines.nextCheck(plan, status, now);
  }

  /**
   * The verdict on a new job whose deleted namesake's objects still hold its names (see {@link
   * PredecessorWaits#predecessorsOverdue}).
   */
  Optional<JobOutcome.Failed> predecessorsOverdue(
      CommJob job, String objects, boolean podsAmongThem, Collection<Pod> pods, Instant now) {
    return predecessors.predecessorsOverdue(job, objects, podsAmongThem, pods, now);
  }

  /** The pod status reason of a pod that the kubelet ended at its activeDeadlineSeconds. */
  static final String DEADLINE_EXCEEDED = "DeadlineExceeded";

  private JobOutcome judge(CommJob job, JobLayout layout, JobObservation observation, Instant now) {
    Map<Integer, Pod> pods = observation.podsByIndex();
    boolean podsWereCreated = job.getStatus() != null && job.getStatus().getStartTime() != null;
    // the pod that failed first comes first: the others' ranks often fail because it did
    List<Map.Entry<Integer, Pod>> failed =
        pods.entrySet().stream()
            .filter(
                e ->
                    e.getKey() < layout.podCount()
                        && "Failed".equals(PodPhases.rankPhaseOf(e.getValue())))
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
                  .map(
                      running ->
                          JobDeadlines.timeLeft(running, layout.timeoutSeconds(), now).isPositive())
                  .orElse(true);
      if (waitMayTell) {
        Optional<JobOutcome> silentNode =
            nodeLoss.verdict(layout, observation, failed, firstOf(failures), now);
        if (silentNode.isPresent()) {
          return silentNode.get();
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
        Optional<JobOutcome> timedOut = deadlines.timedOut(job, layout, observation, now);
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
    return deadlines.outcome(job, layout, observation, now);
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
            .allMatch(i -> "Succeeded".equals(PodPhases.rankPhaseOf(pods.get(i))));
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
      if (!pods.containsKey(index) || !"Succeeded".equals(PodPhases.rankPhaseOf(pods.get(index)))) {
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
}
