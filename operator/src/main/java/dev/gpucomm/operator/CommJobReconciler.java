package dev.gpucomm.operator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Reconciles a CommJob: observes what exists, lets {@link JobOutcomeJudge} decide where the job
 * stands, runs the workflow of owned objects (which reads that decision), and patches the status
 * that {@link CommJobStatusAggregator} builds when it changed.
 */
@ControllerConfiguration(name = CommJobReconciler.NAME)
@Workflow(
    explicitInvocation = true,
    dependents = {
      // a suspended or restarting job has no spec ConfigMap and, as they depend on it, no pods
      @Dependent(
          name = CommJobSpecConfigMapDependentResource.NAME,
          type = CommJobSpecConfigMapDependentResource.class,
          reconcilePrecondition = RunWantedCondition.class),
      // both ConfigMaps come from one informer
      @Dependent(
          name = "results-configmap",
          type = CommJobResultsConfigMapDependentResource.class,
          useEventSourceWithName = CommJobSpecConfigMapDependentResource.NAME),
      @Dependent(name = "service", type = CommJobServiceDependentResource.class),
      @Dependent(name = "service-account", type = CommJobServiceAccountDependentResource.class),
      @Dependent(name = "role", type = CommJobRoleDependentResource.class),
      @Dependent(
          name = "role-binding",
          type = CommJobRoleBindingDependentResource.class,
          dependsOn = {"service-account", "role"}),
      // pods need their ServiceAccount at admission and the spec ConfigMap to mark the start;
      // the other objects are only needed once ranks run, and are created alongside
      @Dependent(
          name = "pods",
          type = CommJobPodsDependentResource.class,
          dependsOn = {CommJobSpecConfigMapDependentResource.NAME, "service-account"})
    })
public class CommJobReconciler implements Reconciler<CommJob> {
  public static final String NAME = "commjob";

  /** A deadline is rechecked this long after it falls due, so that it has surely passed. */
  private static final Duration DEADLINE_SLACK = Duration.ofMillis(200);

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Logger LOG = Logger.getLogger(CommJobReconciler.class);

  private final JobOutcomeJudge judge;
  private final CommJobStatusAggregator aggregator;
  private final CommJobMetrics metrics;
  private final Duration baselineRecheck;
  private final Optional<Duration> lostPodRemovalDelay;
  private final PodTemplateFactory podTemplateFactory;
  private final AutoscalerEventReader autoscalerEvents;

  @Inject
  public CommJobReconciler(
      JobOutcomeJudge judge,
      CommJobStatusAggregator aggregator,
      CommJobMetrics metrics,
      OperatorConfig config,
      PodTemplateFactory podTemplateFactory,
      AutoscalerEventReader autoscalerEvents) {
    this.podTemplateFactory = podTemplateFactory;
    this.autoscalerEvents = autoscalerEvents;
    this.judge = judge;
    this.aggregator = aggregator;
    this.metrics = metrics;
    this.baselineRecheck = baselineRecheckOf(config.baselineRecheckInterval());
    this.lostPodRemovalDelay = LostPods.removalDelay(config);
  }

  /** The shortest wait between two looks at a missing baseline. */
  static final Duration MIN_BASELINE_RECHECK = Duration.ofSeconds(1);

  /**
   * The configured wait between looks at a missing baseline, at least {@link
   * #MIN_BASELINE_RECHECK}: zero would have every finished job that waits for its baseline
   * reconciled in a busy loop.
   */
  static Duration baselineRecheckOf(Duration configured) {
    return configured.compareTo(MIN_BASELINE_RECHECK) < 0 ? MIN_BASELINE_RECHECK : configured;
  }

  /**
   * The PodGroup of a gang job whose run goes on or has just failed, as the API server has it: its
   * queue may hold the pods back, and the PodGroup is made from it when missing. No cache holds
   * PodGroups: the scheduler's kind may not be installed. A suspended, restarting, finished or
   * invalid job reads none, so that a PodGroup the API server will not show keeps none of them from
   * going.
   */
  private static Optional<GenericKubernetesResource> readPodGroup(
      CommJob live, JobPlan plan, Context<CommJob> context) {
    boolean runGoesOn =
        plan.outcome() instanceof JobOutcome.InProgress
            || (plan.outcome() instanceof JobOutcome.Failed
                && JobOutcomeJudge.recordedOutcome(live.getStatus()).isEmpty());
    if (!runGoesOn
        || plan.layout().isEmpty()
        || plan.job().getSpec().getGang() == null
        || plan.job().getSpec().getGang().getScheduler() == null) {
      return Optional.empty();
    }
    return PodGroups.read(context.getClient(), plan.job());
  }

  @Override
  public List<EventSource<?, CommJob>> prepareEventSources(EventSourceContext<CommJob> context) {
    return List.of(new JobDeletionSource(metrics));
  }

  @Override
  public UpdateControl<CommJob> reconcile(CommJob job, Context<CommJob> context) {
    long startNanos = System.nanoTime();
    try {
      metrics.watch(context.getPrimaryCache());
      Instant now = Instant.now();
      String namespace = job.getMetadata().getNamespace();
      JobObservation cached =
          JobObservation.of(job, context)
              .withNodeProvisioning(
                  NodeProvisioning.readNoEarlierThan(
                      notBefore ->
                          autoscalerEvents.in(context.getClient(), namespace, now, notBefore)));
      // a deleted pod on a lost node (this job's, or a deleted namesake's) would hold its name,
      // which the next run needs, for good
      if (lostPodRemovalDelay.isPresent()) {
        metrics.recordLostPodsRemoved(
            LostPods.remove(
                context.getClient(),
                job,
                LostPods.overdue(
                    context.getSecondaryResources(Pod.class), lostPodRemovalDelay.get(), now)));
      }
      CommJobStatus statusBefore = job.getStatus();
      if (cached.predecessorObjects() > 0
          && JobOutcomeJudge.recordedOutcome(statusBefore).isEmpty()) {
        return awaitPredecessorCleanup(
            job, cached.predecessorsInWords(), cached.predecessorPods() > 0, cached, now, context);
      }
      JobPlan unqueued = judge.plan(job, cached, now);
      Optional<GenericKubernetesResource> podGroup = readPodGroup(job, unqueued, context);
      Optional<String> gangQueue = PodGroups.queueHold(podGroup, unqueued.job());
      JobObservation before = cached.withGangQueue(gangQueue);
      // a gang its queue holds back is no scheduling failure: judged again knowing it
      JobPlan plan = gangQueue.isPresent() ? judge.plan(job, before, now) : unqueued;
      if (!before.terminatingPods().isEmpty()
          && !before.started()
          && plan.outcome() instanceof JobOutcome.InProgress) {
        // a run resumed while its suspended run's pods still stop: theirs are the names it needs
        return awaitCleanup(
            job,
            Reasons.PODS_TERMINATING,
            "waiting for %d pods of the job's earlier run to terminate"
                .formatted(before.terminatingPods().size()),
            context);
      }
      LOG.debugf(
          "%s/%s: pods %s -> %s",
          job.getMetadata().getNamespace(),
          job.getMetadata().getName(),
          before.podPhases(),
          plan.outcome());
      JobObservation after = before;
      if (plan.layout().isPresent()) {
        boolean restartWasUnderway = JobRestarts.underway(job.getStatus()).isPresent();
        if (recordsBeforeTheWorkflow(job, plan)) {
          job =
              patchStatusIfChanged(
                  job, aggregator.aggregate(job, plan, before, now).status(), context);
          // told now: the workflow may fail (a quota refusing the new run's pods), and the next
          // reconciliation starts from this status
          CommJobEventRecorder.recordTransitions(
              context.getClient(), job, statusBefore, job.getStatus());
          statusBefore = job.getStatus();
          if (!restartWasUnderway && plan.outcome() instanceof JobOutcome.Restarting restarting) {
            metrics.recordRestart(restarting.cause());
          }
        }
        if (plan.outcome() instanceof JobOutcome.Restarting
            || plan.outcome() instanceof JobOutcome.Suspended
            || restartWasUnderway
            || (plan.outcome() instanceof JobOutcome.InProgress && !before.started())) {
          // while the failed (or suspended) run's pods go, and once more as any run begins, before
          // its objects are made: a failed rank 0 may still publish in its grace period. A resumed
          // run has the same restart attempt as the run it replaces, so its stamp cannot tell the
          // two apart.
          JobRestarts.forgetReport(context.getClient(), before.results());
        }
        if (plan.outcome() instanceof JobOutcome.InProgress
            && plan.job().getSpec().getGang() != null) {
          // the PodGroup comes before its pods, which the gang scheduler holds until it exists
          switch (PodGroups.ensure(
              context.getClient(),
              plan.job(),
              plan.layout().get(),
              () -> podTemplateFactory.buildAll(plan.job(), plan.layout().get()),
              before.started(),
              podGroup)) {
            case PodGroups.Group.Ready ready -> {}
            case PodGroups.Group.Foreign foreign -> {
              return awaitPredecessorCleanup(job, "the PodGroup", false, before, now, context);
            }
            case PodGroups.Group.Unusable unusable when !before.started() -> {
              return failNow(
                  job,
                  statusBefore,
                  plan,
                  before,
                  now,
                  Reasons.UNSCHEDULABLE,
                  unusable.message(),
                  context);
            }
            // A started job's pods exist and wait in their gang: its scheduler gone for a moment
            // (its CRD reinstalled), or its group replaced under it, is not the run's failure.
            case PodGroups.Group.Unusable unusable -> {}
          }
        }
        context.managedWorkflowAndDependentResourceContext().put(JobPlan.class, plan);
        try {
          context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
        } catch (RuntimeException e) {
          boolean running = job.getStatus() != null && job.getStatus().getRunningTime() != null;
          if (running || !(plan.outcome() instanceof JobOutcome.InProgress)) {
            throw e;
          }
          // refused again on every retry: a name another owner holds (without this the job would
          // wait forever), or a pod the server finds invalid
          Optional<String> refusal =
              ApiRejection.nameTaken(e)
                  ? ForeignObjects.find(context.getClient(), job, plan.layout().get())
                  : Optional.empty();
          if (refusal.isEmpty()) {
            refusal =
                ApiRejection.invalidPod(e)
                    .map(message -> "the API server refused a pod made from the spec: " + message);
          }
          if (refusal.isEmpty()) {
            throw e;
          }
          return failNow(
              job,
              statusBefore,
              plan,
              before,
              now,
              Reasons.REJECTED_BY_API_SERVER,
              refusal.get(),
              context);
        }
        after = JobObservation.of(job, context);
      }
      CommJobStatusAggregator.Aggregate aggregate = aggregator.aggregate(job, plan, after, now);
      if (plan.outcome() instanceof JobOutcome.Succeeded && aggregate.report().isPresent()) {
        metrics.recordSucceeded(job, aggregate.report().get());
      } else {
        metrics.forgetDeletedJobs();
      }
      CommJob patched = patchStatusIfChanged(job, aggregate.status(), context);
      CommJobEventRecorder.recordTransitions(
          context.getClient(), job, statusBefore, aggregate.status());
      Optional<Duration> ttlLeft = FinishedJobTtl.timeLeft(plan.job(), aggregate.status(), now);
      if (ttlLeft.isPresent() && !ttlLeft.get().isPositive()) {
        LOG.infof(
            "%s/%s: deleting the job %d s after it finished (spec.ttlSecondsAfterFinished)",
            job.getMetadata().getNamespace(),
            job.getMetadata().getName(),
            plan.job().getSpec().getTtlSecondsAfterFinished());
        if (!FinishedJobTtl.expire(context.getClient(), patched)) {
          return UpdateControl.<CommJob>noUpdate().rescheduleAfter(FinishedJobTtl.CHANGED_RECHECK);
        }
        return UpdateControl.noUpdate();
      }
      UpdateControl<CommJob> control = UpdateControl.noUpdate();
      Stream.of(
              judge.nextCheck(plan, aggregate.status(), now).stream()
                  .map(wait -> wait.plus(DEADLINE_SLACK)),
              baselineToLookAtAgain(aggregate.status()).stream(),
              ttlLeft.stream().map(wait -> wait.plus(DEADLINE_SLACK)),
              lostPodRemovalDelay.stream()
                  .flatMap(
                      delay ->
                          LostPods.nextLook(context.getSecondaryResources(Pod.class), delay, now)
                              .stream())
                  .map(wait -> wait.plus(DEADLINE_SLACK)))
          .flatMap(s -> s)
          .min(Comparator.naturalOrder())
          .ifPresent(control::rescheduleAfter);
      return control;
    } finally {
      metrics.recordReconcile(Duration.ofNanos(System.nanoTime() - startNanos));
    }
  }

  /**
   * Whether the status is patched before the workflow runs. The workflow deletes the pods of a
   * finished job (by its cleanPodPolicy) and of a restarting one: the verdict is recorded first, so
   * that a status patch lost after the deletion cannot leave a job without pods and without the
   * reason they went (it would read as PodDeleted, and a restart would be counted twice). A restart
   * is marked over before the new run's pods are made, for the same reason: the mark must never
   * outlive them, or the next reconciliation would delete them as the failed run's.
   */
  private static boolean recordsBeforeTheWorkflow(CommJob job, JobPlan plan) {
    boolean newVerdict =
        plan.outcome().finished() && JobOutcomeJudge.recordedOutcome(job.getStatus()).isEmpty();
    boolean restartMarkChanges =
        JobRestarts.underway(job.getStatus()).isPresent()
            != (plan.outcome() instanceof JobOutcome.Restarting);
    // the clocks run from the release only once it is recorded: a workflow that keeps failing
    // would otherwise find it new, and start them again, on every retry
    boolean release = SchedulingHold.releaseUnrecorded(job.getStatus(), plan.observation());
    return newVerdict || restartMarkChanges || release;
  }

  /**
   * A CommJob deleted and created again under the same name finds the first one's pods and
   * ConfigMaps, which carry its names, until the garbage collector removes them; taking them for
   * its own would run the old spec or report the old result. So the new job waits: their deletions
   * reconcile it again, and so does a recheck in case an event is missed. Objects still there a
   * scheduling timeout after the job was created are stuck, and fail it.
   */
  private UpdateControl<CommJob> awaitPredecessorCleanup(
      CommJob job,
      String objects,
      boolean podsAmongThem,
      JobObservation observation,
      Instant now,
      Context<CommJob> context) {
    Optional<JobOutcome.Failed> overdue =
        judge.predecessorsOverdue(
            job, objects, podsAmongThem, context.getSecondaryResources(Pod.class), now);
    if (overdue.isPresent()) {
      return failNow(
          job,
          job.getStatus(),
          judge.plan(job, observation, now),
          observation,
          now,
          overdue.get().reason(),
          overdue.get().message(),
          context);
    }
    return awaitCleanup(
        job,
        Reasons.PREDECESSOR_TERMINATING,
        "waiting for %s of a deleted CommJob named %s to be deleted"
            .formatted(objects, job.getMetadata().getName()),
        context);
  }

  /** Ready=False with {@code reason}, and a look again soon, for objects that are going away. */
  private UpdateControl<CommJob> awaitCleanup(
      CommJob job, String reason, String message, Context<CommJob> context) {
    // a copy: the job is the cache's, and the patch is made only if the copy differs from it
    CommJobStatus status =
        job.getStatus() == null
            ? new CommJobStatus()
            : SERIALIZATION.convertValue(job.getStatus(), CommJobStatus.class);
    CommJobStatus next = withReady(status, reason, message, job);
    patchStatusIfChanged(job, next, context);
    return UpdateControl.<CommJob>noUpdate().rescheduleAfter(PREDECESSOR_RECHECK);
  }

  /**
   * Fails a job for what no retry changes: its status says why now, and the next pass (soon after)
   * removes what was made, as for any failed job.
   */
  private UpdateControl<CommJob> failNow(
      CommJob job,
      CommJobStatus statusBefore,
      JobPlan plan,
      JobObservation observation,
      Instant now,
      String reason,
      String message,
      Context<CommJob> context) {
    JobPlan failed =
        new JobPlan(
            plan.job(), plan.observation(), new JobOutcome.Failed(reason, message), plan.layout());
    CommJobStatus status = aggregator.aggregate(job, failed, observation, now).status();
    patchStatusIfChanged(job, status, context);
    CommJobEventRecorder.recordTransitions(context.getClient(), job, statusBefore, status);
    return UpdateControl.<CommJob>noUpdate().rescheduleAfter(FAILURE_CLEANUP);
  }

  /** How soon a job failed by {@link #failNow} is reconciled again, to remove what was made. */
  static final Duration FAILURE_CLEANUP = Duration.ofSeconds(1);

  /** How soon a job waiting for its predecessor's objects looks again without an event. */
  static final Duration PREDECESSOR_RECHECK = Duration.ofSeconds(5);

  /**
   * When the regression verdict waits for a baseline ConfigMap that is missing or unreadable: look
   * again after the recheck interval (the ConfigMap is not the operator's, so no event says it
   * changed).
   */
  private Optional<Duration> baselineToLookAtAgain(CommJobStatus status) {
    return ConditionList.find(status.getConditions(), Reasons.REGRESSED)
        .filter(c -> ConditionList.UNKNOWN.equals(c.getStatus()))
        .filter(
            c ->
                Reasons.BASELINE_NOT_FOUND.equals(c.getReason())
                    || Reasons.BASELINE_UNREADABLE.equals(c.getReason()))
        .map(c -> baselineRecheck);
  }

  /**
   * After JOSDK's last retry of a failed reconciliation the job is looked at again this long after,
   * instead of after the maximal reconciliation interval (hours): a refused pod (a quota, an
   * admission policy) must neither keep its peers' GPUs past the job's timeout nor miss quota freed
   * meanwhile.
   */
  static final Duration ERROR_RECHECK = Duration.ofSeconds(60);

  /**
   * A failed reconciliation (an object the API server refused, say) is shown as Ready=False with
   * reason ReconcileError while JOSDK retries; the phase is left as it was. Once the retries are
   * spent, the job is reconciled again after {@link #ERROR_RECHECK}, where its timeout applies.
   */
  @Override
  public ErrorStatusUpdateControl<CommJob> updateErrorStatus(
      CommJob job, Context<CommJob> context, Exception error) {
    CommJobStatus status = Objects.requireNonNullElseGet(job.getStatus(), CommJobStatus::new);
    job.setStatus(
        withReady(
            status,
            Reasons.RECONCILE_ERROR,
            PodFailureDescriber.lastLine(rootMessage(error)),
            job));
    ErrorStatusUpdateControl<CommJob> control = ErrorStatusUpdateControl.patchStatus(job);
    if (context.getRetryInfo().map(RetryInfo::isLastAttempt).orElse(false)) {
      control = control.withNoRetry().rescheduleAfter(ERROR_RECHECK);
    }
    return control;
  }

  /** {@code status} (changed in place) with Ready=False for {@code reason} first. */
  private static CommJobStatus withReady(
      CommJobStatus status, String reason, String message, CommJob job) {
    long generation = Objects.requireNonNullElse(job.getMetadata().getGeneration(), 0L);
    List<Condition> conditions = new ArrayList<>();
    if (status.getConditions() != null) {
      status.getConditions().stream()
          .filter(c -> !Reasons.READY.equals(c.getType()))
          .forEach(conditions::add);
    }
    conditions.add(
        0,
        ConditionList.next(
            status.getConditions(),
            Reasons.READY,
            ConditionList.FALSE,
            reason,
            message,
            generation,
            Instant.now()));
    status.setConditions(conditions);
    return status;
  }

  /**
   * What went wrong, in the API server's words where it answered: the workflow's aggregate of
   * failures is a multi-line report with stack traces, whose last line says nothing ("... 1 more").
   */
  static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (true) {
      if (cause instanceof AggregatedOperatorException aggregated
          && !aggregated.getAggregatedExceptions().isEmpty()) {
        cause = aggregated.getAggregatedExceptions().values().iterator().next();
      } else if (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      } else {
        break;
      }
    }
    if (cause instanceof KubernetesClientException client
        && client.getStatus() != null
        && client.getStatus().getMessage() != null) {
      return client.getStatus().getMessage();
    }
    return Objects.requireNonNullElse(cause.getMessage(), cause.getClass().getSimpleName());
  }

  /**
   * Patches the status (a JSON patch of the status subresource) only when it differs from the one
   * the job has, and puts the patched job into the operator's cache at once: the reconciliation
   * that the job's own pod deletions trigger must already see a verdict such as Timeout.
   */
  private static CommJob patchStatusIfChanged(
      CommJob job, CommJobStatus status, Context<CommJob> context) {
    JsonNode current = SERIALIZATION.convertValue(job.getStatus(), JsonNode.class);
    JsonNode next = SERIALIZATION.convertValue(status, JsonNode.class);
    if (Objects.equals(current, next)) {
      return job;
    }
    return PrimaryUpdateAndCacheUtils.patchStatusAndCacheResource(
        job,
        context,
        patched -> {
          patched.setStatus(status);
          return patched;
        });
  }
}
