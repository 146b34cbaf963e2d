package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.FailurePolicy;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * spec.failurePolicy at work: whether a run's failure starts the job afresh, and whether a restart
 * is under way. A restart is marked by the Restarting condition, True from the failure until the
 * new run begins, so that a failure is counted once however often the job is reconciled while its
 * failed run's pods go.
 */
final class JobRestarts {
  private static final Logger LOG = Logger.getLogger(JobRestarts.class);

  private JobRestarts() {}

  /**
   * What {@code failure}, just judged, makes of the job: a restart when its policy restarts that
   * kind of failure and restarts are left; else the failure itself, which says so when the restarts
   * are spent.
   */
  static JobOutcome afterFailure(CommJob job, CommJobStatus status, JobOutcome.Failed failure) {
    FailurePolicy policy = job.getSpec().getFailurePolicy();
    Optional<RestartCause> cause = failure.restartableAs();
    if (policy == null || cause.isEmpty() || !restartOn(policy).contains(cause.get())) {
      return failure;
    }
    int maxRestarts = Objects.requireNonNullElse(policy.getMaxRestarts(), 0);
    int made = made(status);
    if (made < maxRestarts) {
      return new JobOutcome.Restarting(
          cause.get(),
          "restart %d of %d after %s: %s"
              .formatted(made + 1, maxRestarts, failure.reason(), failure.message()),
          made + 1);
    }
    if (maxRestarts == 0 && made == 0) {
      return failure;
    }
    return new JobOutcome.Failed(
        failure.reason(),
        failure.message()
            + "; no restart left (%d of spec.failurePolicy.maxRestarts %d made)"
                .formatted(made, maxRestarts),
        failure.restartableAs());
  }

  /** The restart the status marks as under way, if any. */
  static Optional<JobOutcome.Restarting> underway(CommJobStatus status) {
    return marked(status)
        .map(
            c ->
                new JobOutcome.Restarting(
                    RestartCause.fromWireName(c.getReason()).orElse(RestartCause.DISRUPTION),
                    Objects.requireNonNullElse(c.getMessage(), ""),
                    Math.max(1, made(status))));
  }

  /**
   * A restart whose failed run's objects are still here a scheduling timeout after it began: a pod
   * that deletion never reaches (a webhook or a policy refusing it), a spec ConfigMap a foreign
   * finalizer holds. Pods that terminate too long are {@link PredecessorWaits}' to name.
   */
  static Optional<JobOutcome> overdue(
      CommJobStatus status, JobObservation observation, Duration limit, Instant now) {
    if (observation.podsByIndex().isEmpty() && !observation.started()) {
      return Optional.empty(); // all that is left is terminating, within its grace period or not
    }
    return marked(status)
        .map(Condition::getLastTransitionTime)
        .filter(text -> text != null && !text.isEmpty())
        .map(Instant::parse)
        .filter(since -> since.plus(limit).isBefore(now))
        .map(
            since ->
                new JobOutcome.Failed(
                    Reasons.UNSCHEDULABLE,
                    "the failed run's pods or spec ConfigMap are still here %d s after the restart"
                            .formatted(limit.toSeconds())
                        + " began (spec.schedulingTimeoutSeconds); the new run needs their names"));
  }

  /** How many restarts the status records. */
  static int made(CommJobStatus status) {
    return status == null || status.getRestarts() == null ? 0 : status.getRestarts();
  }

  /**
   * Empties the results ConfigMap of a failed, or suspended, run's report, so that the status and
   * {@code gpucomm report} never show it as the next run's; the next run's rank 0 writes its own.
   * Best effort: a ConfigMap that cannot be edited (gone, immutable, a policy) must not hold the
   * restart up, and the status ignores the report while the job restarts.
   */
  static void forgetReport(KubernetesClient client, Optional<ConfigMap> results) {
    if (results.isEmpty()
        || (isEmpty(results.get().getData()) && isEmpty(results.get().getBinaryData()))) {
      return;
    }
    ConfigMap held = results.get();
    try {
      client
          .configMaps()
          .inNamespace(held.getMetadata().getNamespace())
          .withName(held.getMetadata().getName())
          .edit(
              configMap -> {
                configMap.setData(null);
                configMap.setBinaryData(null);
                // a next run whose runtime stamps nothing must not inherit this run's stamp
                if (configMap.getMetadata().getAnnotations() != null) {
                  configMap.getMetadata().getAnnotations().remove(ReportRun.ANNOTATION);
                }
                return configMap;
              });
    } catch (KubernetesClientException e) {
      LOG.warnf(
          "%s/%s: the failed run's report was not emptied: %s",
          held.getMetadata().getNamespace(),
          held.getMetadata().getName(),
          PodFailureDescriber.lastLine(String.valueOf(e.getMessage())));
    }
  }

  private static boolean isEmpty(Map<String, String> map) {
    return map == null || map.isEmpty();
  }

  private static Optional<Condition> marked(CommJobStatus status) {
    if (status == null) {
      return Optional.empty();
    }
    return ConditionList.find(status.getConditions(), Reasons.RESTARTING)
        .filter(c -> ConditionList.TRUE.equals(c.getStatus()));
  }

  private static List<RestartCause> restartOn(FailurePolicy policy) {
    return policy.getRestartOn() == null || policy.getRestartOn().isEmpty()
        ? CommJobDefaults.RESTART_ON
        : policy.getRestartOn();
  }
}
