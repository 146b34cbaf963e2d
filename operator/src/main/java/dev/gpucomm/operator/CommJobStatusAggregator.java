package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Expectation;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.api.v1alpha1.report.ExpectationVerdict;
import dev.gpucomm.api.v1alpha1.report.FabricVerdict;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportFormatException;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a CommJob's status from a {@link JobPlan} and what exists after the workflow ran: phase,
 * conditions (Ready, Succeeded, Failed, Regressed, MeetsExpectations, Degraded, SpecChanged,
 * Queued), times, and the per-size summary read from the results ConfigMap.
 */
@ApplicationScoped
public class CommJobStatusAggregator {
  private final BaselineComparator baselineComparator;

  @Inject
  public CommJobStatusAggregator(BaselineComparator baselineComparator) {
    this.baselineComparator = baselineComparator;
  }

  /** The status and, when the results ConfigMap holds a readable one, the report read. */
  public record Aggregate(CommJobStatus status, Optional<ReportSummary> report) {}

  /** The status of {@code live} after a reconciliation planned by {@code plan}. */
  public Aggregate aggregate(CommJob live, JobPlan plan, JobObservation after, Instant now) {
    CommJobStatus previous = Objects.requireNonNullElseGet(live.getStatus(), CommJobStatus::new);
    List<Condition> before = previous.getConditions();
    long generation = Objects.requireNonNullElse(live.getMetadata().getGeneration(), 0L);
    JobOutcome outcome = plan.outcome();
    Map<Integer, Pod> pods = after.podsByIndex();
    CommJobStatus status = new CommJobStatus().withObservedGeneration(generation);
    status.setPhase(phase(outcome, pods));
    // a suspended or restarting job starts afresh: its times count again from its next pods
    boolean afresh =
        outcome instanceof JobOutcome.Suspended || outcome instanceof JobOutcome.Restarting;
    status.setStartTime(afresh ? null : startTime(previous, after, now));
    status.setRunningTime(afresh ? null : runningTime(previous, plan, after, now));
    status.setRestarts(
        outcome instanceof JobOutcome.Restarting restarting
            ? Integer.valueOf(restarting.restart())
            : previous.getRestarts());
    if (outcome.finished()) {
      status.setCompletionTime(
          Objects.requireNonNullElseGet(
              previous.getCompletionTime(), () -> ConditionList.rfc3339(now)));
    }

    Optional<ReportSummary> report = Optional.empty();
    String reportProblem = null;
    // a restarting job's report is its failed run's, being emptied: never the new run's
    Optional<String> json =
        outcome instanceof JobOutcome.Restarting
            ? Optional.empty()
            : reportJson(after.results(), JobRestarts.made(previous));
    if (json.isPresent()) {
      try {
        report =
            Optional.of(
                ReportSummary.read(
                    json.get(),
                    after.results().orElseThrow().getMetadata().getName() + " report.json"));
        status.setSummary(report.get().sizes().isEmpty() ? null : report.get().sizes());
        status.setBest(report.get().bestAtLargestSize().orElse(null));
        status.setFabric(report.get().transports().isEmpty() ? null : report.get().transports());
        status.setReportRef(after.results().orElseThrow().getMetadata().getName());
      } catch (ReportFormatException e) {
        reportProblem = e.getMessage();
      }
    }

    List<Condition> conditions = new ArrayList<>();
    conditions.add(ready(before, outcome, plan, pods, generation, now));
    conditions.add(succeeded(before, outcome, plan, reportProblem, generation, now));
    conditions.add(failed(before, outcome, generation, now));
    Baseline baseline = plan.job().getSpec() == null ? null : plan.job().getSpec().getBaseline();
    if (baseline != null && plan.layout().isPresent()) {
      RegressionVerdict verdict =
          regression(live, baseline, before, outcome, report, reportProblem);
      conditions.add(
          ConditionList.next(
              before,
              Reasons.REGRESSED,
              verdict.status(),
              verdict.reason(),
              verdict.message(),
              generation,
              now));
    }
    List<Expectation> expect =
        plan.job().getSpec() == null ? null : plan.job().getSpec().getExpect();
    if (expect != null && !expect.isEmpty() && plan.layout().isPresent()) {
      ExpectationVerdict verdict =
          ExpectationGate.verdict(expect, before, outcome, report, reportProblem);
      conditions.add(
          ConditionList.next(
              before,
              Reasons.MEETS_EXPECTATIONS,
              verdict.status(),
              verdict.reason(),
              verdict.message(),
              generation,
              now));
    }
    if (isFabricSweep(plan) && plan.layout().isPresent()) {
      FabricVerdict verdict = degraded(outcome, report, reportProblem);
      conditions.add(
          ConditionList.next(
              before,
              Reasons.DEGRADED,
              verdict.status(),
              verdict.reason(),
              verdict.message(),
              generation,
              now));
    }
    SchedulingHold.condition(previous, outcome, plan.observation(), after, generation, now)
        .ifPresent(conditions::add);
    suspendedCondition(before, outcome, generation, now).ifPresent(conditions::add);
    restartingCondition(before, outcome, generation, now).ifPresent(conditions::add);
    Optional<Long> startedGeneration = after.startedGeneration();
    // a run that is going (suspended, restarting) runs no spec: its spec ConfigMap, which the
    // informer may still hold after the workflow deleted it, is no edit's measure (a queue
    // restoring the template as it evicts the job)
    if (!(outcome instanceof JobOutcome.Suspended || outcome instanceof JobOutcome.Restarting)
        && startedGeneration.isPresent()
        && startedGeneration.get() != generation
        && live.getSpec() != null
        && plan.job().getSpec() != null
        && LifecycleFields.runDiffers(live.getSpec(), plan.job().getSpec())) {
      conditions.add(
          ConditionList.next(
              before,
              Reasons.SPEC_CHANGED,
              ConditionList.TRUE,
              Reasons.SPEC_IMMUTABLE,
              "spec changed (generation %d) after the job started with generation %d; the job runs the spec it started with: create a new CommJob to run another"
                  .formatted(generation, startedGeneration.get()),
              generation,
              now));
    }
    status.setConditions(conditions);
    return new Aggregate(status, report);
  }

  private static boolean isFabricSweep(JobPlan plan) {
    return plan.job().getSpec() != null
        && plan.job().getSpec().getWorkload() != null
        && plan.job().getSpec().getWorkload().getKind() == WorkloadKind.FABRIC;
  }

  /** A fabric sweep's verdict once its report is read; Unknown until then. */
  private static FabricVerdict degraded(
      JobOutcome outcome, Optional<ReportSummary> report, String reportProblem) {
    if (reportProblem != null) {
      return new FabricVerdict(
          ConditionList.UNKNOWN,
          Reasons.REPORT_UNREADABLE,
          reportProblem,
          List.of(),
          List.of(),
          List.of());
    }
    Optional<FabricVerdict> verdict = report.flatMap(ReportSummary::fabricVerdict);
    if (verdict.isEmpty() || !(outcome instanceof JobOutcome.Succeeded)) {
      return new FabricVerdict(
          ConditionList.UNKNOWN,
          Reasons.AWAITING_REPORT,
          outcome instanceof JobOutcome.Failed
              ? "the job failed without a fabric report"
              : "no fabric report yet",
          List.of(),
          List.of(),
          List.of());
    }
    return verdict.get();
  }

  private static Phase phase(JobOutcome outcome, Map<Integer, Pod> pods) {
    return switch (outcome) {
      case JobOutcome.Succeeded s -> Phase.SUCCEEDED;
      case JobOutcome.Failed f -> Phase.FAILED;
      case JobOutcome.Suspended _, JobOutcome.Restarting _ -> Phase.PENDING;
      case JobOutcome.InProgress p ->
          pods.values().stream()
                  .map(PodPhases::phaseOf)
                  .anyMatch(phase -> phase.equals("Running") || phase.equals("Succeeded"))
              ? Phase.RUNNING
              : Phase.PENDING;
    };
  }

  /** When the pods were created: kept once recorded. */
  private static String startTime(CommJobStatus previous, JobObservation after, Instant now) {
    if (previous.getStartTime() != null) {
      return previous.getStartTime();
    }
    if (after.podsByIndex().isEmpty()) {
      return null;
    }
    return after.podsByIndex().values().stream()
        .map(pod -> pod.getMetadata().getCreationTimestamp())
        .filter(text -> text != null && !text.isEmpty())
        .min(String::compareTo)
        .orElseGet(() -> ConditionList.rfc3339(now));
  }

  /**
   * When every pod was first running (or had finished): kept once recorded; the job's timeout
   * counts from it.
   */
  private static String runningTime(
      CommJobStatus previous, JobPlan plan, JobObservation after, Instant now) {
    if (previous.getRunningTime() != null) {
      return previous.getRunningTime();
    }
    if (plan.layout().isEmpty() || !after.allPodsRan(plan.layout().get().podCount())) {
      return null;
    }
    return ConditionList.rfc3339(now);
  }

  /**
   * Suspended=True while spec.suspend holds the job back; False once it is resumed. A job never
   * suspended has no such condition.
   */
  private static Optional<Condition> suspendedCondition(
      List<Condition> before, JobOutcome outcome, long generation, Instant now) {
    if (outcome instanceof JobOutcome.Suspended) {
      return Optional.of(
          ConditionList.next(
              before,
              Reasons.SUSPENDED,
              ConditionList.TRUE,
              Reasons.JOB_SUSPENDED,
              "spec.suspend is set: the job has no pods until it is unsuspended",
              generation,
              now));
    }
    return ConditionList.find(before, Reasons.SUSPENDED)
        .map(
            previous ->
                ConditionList.next(
                    before,
                    Reasons.SUSPENDED,
                    ConditionList.FALSE,
                    Reasons.JOB_RESUMED,
                    "the job was unsuspended and starts afresh",
                    generation,
                    now));
  }

  /**
   * Restarting=True, with the policy's kind of failure as its reason, while a failed run's pods go;
   * False once the new run begins (Restarted), or when none does (NotRestarted: the job was
   * suspended, or failed, first). It keeps what the last restart was for. A job never restarted has
   * no such condition.
   */
  private static Optional<Condition> restartingCondition(
      List<Condition> before, JobOutcome outcome, long generation, Instant now) {
    if (outcome instanceof JobOutcome.Restarting restarting) {
      return Optional.of(
          ConditionList.next(
              before,
              Reasons.RESTARTING,
              ConditionList.TRUE,
              restarting.cause().wireName(),
              restarting.message(),
              generation,
              now));
    }
    return ConditionList.find(before, Reasons.RESTARTING)
        .map(
            previous -> {
              if (!ConditionList.TRUE.equals(previous.getStatus())) {
                return previous;
              }
              boolean began = outcome instanceof JobOutcome.InProgress;
              return ConditionList.next(
                  before,
                  Reasons.RESTARTING,
                  ConditionList.FALSE,
                  began ? Reasons.RESTARTED : Reasons.NOT_RESTARTED,
                  began
                      ? previous.getMessage()
                      : previous.getMessage()
                          + (outcome instanceof JobOutcome.Suspended
                              ? "; the job was suspended before its new run began"
                              : "; the job failed before its new run began"),
                  generation,
                  now);
            });
  }

  /**
   * report.json of the results ConfigMap, when it is this run's: a failed run's rank 0 may publish
   * after its job restarted, and stamps the run it is of (a report without a stamp is an older
   * runtime's, taken as the current run's).
   */
  private static Optional<String> reportJson(Optional<ConfigMap> results, int runAttempt) {
    return results
        .filter(configMap -> ReportRun.isOf(configMap, runAttempt))
        .map(ConfigMap::getData)
        .map(data -> data.get(CommJobResultsConfigMapDependentResource.REPORT_JSON));
  }

  private static Condition ready(
      List<Condition> before,
      JobOutcome outcome,
      JobPlan plan,
      Map<Integer, Pod> pods,
      long generation,
      Instant now) {
    if (outcome instanceof JobOutcome.Suspended) {
      return ConditionList.next(
          before,
          Reasons.READY,
          ConditionList.FALSE,
          Reasons.JOB_SUSPENDED,
          "the job is suspended",
          generation,
          now);
    }
    if (outcome instanceof JobOutcome.Restarting restarting) {
      return ConditionList.next(
          before,
          Reasons.READY,
          ConditionList.FALSE,
          Reasons.RESTARTING,
          "the failed run's pods are going; then the job starts afresh (%s)"
              .formatted(restarting.message()),
          generation,
          now);
    }
    if (outcome.finished() || plan.layout().isEmpty()) {
      return ConditionList.next(
          before,
          Reasons.READY,
          ConditionList.FALSE,
          Reasons.JOB_FINISHED,
          "the job has finished",
          generation,
          now);
    }
    JobLayout layout = plan.layout().get();
    boolean aPodFailed =
        pods.entrySet().stream()
            .anyMatch(
                e ->
                    e.getKey() < layout.podCount()
                        && "Failed".equals(PodPhases.rankPhaseOf(e.getValue())));
    if (outcome instanceof JobOutcome.InProgress && aPodFailed) {
      // a run with a failed pod goes on only while the verdict waits for a lost node's sign; the
      // message names no time, so that it stays as it is until the verdict
      return ConditionList.next(
          before,
          Reasons.READY,
          ConditionList.FALSE,
          Reasons.PODS_FAILING,
          PodPhases.podCounts(pods, layout)
              + "; judged once the pods still running end or show their node lost, at the latest"
              + " runtime.nodeLossGrace after the first failure",
          generation,
          now);
    }
    long running =
        pods.values().stream().filter(p -> "Running".equals(PodPhases.rankPhaseOf(p))).count();
    boolean allRunning = running == layout.podCount();
    Optional<String> waitingForNode =
        outcome instanceof JobOutcome.InProgress inProgress
            ? inProgress.waitingForNode()
            : Optional.empty();
    return ConditionList.next(
        before,
        Reasons.READY,
        allRunning ? ConditionList.TRUE : ConditionList.FALSE,
        allRunning ? Reasons.PODS_RUNNING : Reasons.PODS_PENDING,
        PodPhases.podCounts(pods, layout)
            + waitingForNode.map(waiting -> "; " + waiting).orElse(""),
        generation,
        now);
  }

  private static Condition succeeded(
      List<Condition> before,
      JobOutcome outcome,
      JobPlan plan,
      String reportProblem,
      long generation,
      Instant now) {
    return switch (outcome) {
      case JobOutcome.Succeeded s -> {
        JobLayout layout = plan.layout().orElseThrow();
        String message =
            "all %d ranks in %d pods succeeded".formatted(layout.worldSize(), layout.podCount());
        if (reportProblem != null) {
          message += "; " + reportProblem;
        }
        yield ConditionList.next(
            before,
            Reasons.SUCCEEDED,
            ConditionList.TRUE,
            Reasons.ALL_RANKS_SUCCEEDED,
            message,
            generation,
            now);
      }
      case JobOutcome.Failed f ->
          ConditionList.next(
              before,
              Reasons.SUCCEEDED,
              ConditionList.FALSE,
              Reasons.JOB_FAILED,
              "the job failed (see the Failed condition)",
              generation,
              now);
      case JobOutcome.InProgress _, JobOutcome.Suspended _, JobOutcome.Restarting _ ->
          ConditionList.next(
              before,
              Reasons.SUCCEEDED,
              ConditionList.FALSE,
              Reasons.NOT_FINISHED,
              "the job has not finished",
              generation,
              now);
    };
  }

  private static Condition failed(
      List<Condition> before, JobOutcome outcome, long generation, Instant now) {
    return switch (outcome) {
      case JobOutcome.Failed f ->
          ConditionList.next(
              before, Reasons.FAILED, ConditionList.TRUE, f.reason(), f.message(), generation, now);
      case JobOutcome.Succeeded s ->
          ConditionList.next(
              before,
              Reasons.FAILED,
              ConditionList.FALSE,
              Reasons.JOB_SUCCEEDED,
              "the job succeeded",
              generation,
              now);
      case JobOutcome.InProgress _, JobOutcome.Suspended _, JobOutcome.Restarting _ ->
          ConditionList.next(
              before,
              Reasons.FAILED,
              ConditionList.FALSE,
              Reasons.NOT_FINISHED,
              "the job has not finished",
              generation,
              now);
    };
  }

  /** Decided once (True or False) from the report and the baseline, then kept. */
  private RegressionVerdict regression(
      CommJob live,
      Baseline baseline,
      List<Condition> before,
      JobOutcome outcome,
      Optional<ReportSummary> report,
      String reportProblem) {
    Optional<Condition> decided =
        ConditionList.find(before, Reasons.REGRESSED)
            .filter(
                c ->
                    ConditionList.TRUE.equals(c.getStatus())
                        || ConditionList.FALSE.equals(c.getStatus()));
    if (decided.isPresent()) {
      Condition c = decided.get();
      return new RegressionVerdict(c.getStatus(), c.getReason(), c.getMessage());
    }
    if (reportProblem != null) {
      return new RegressionVerdict(ConditionList.UNKNOWN, Reasons.REPORT_UNREADABLE, reportProblem);
    }
    if (report.isEmpty() || !(outcome instanceof JobOutcome.Succeeded)) {
      String message =
          outcome instanceof JobOutcome.Failed
              ? "the job failed without a report to compare"
              : "no report to compare yet";
      return new RegressionVerdict(ConditionList.UNKNOWN, Reasons.AWAITING_REPORT, message);
    }
    return baselineComparator.compare(live.getMetadata().getNamespace(), baseline, report.get());
  }
}
