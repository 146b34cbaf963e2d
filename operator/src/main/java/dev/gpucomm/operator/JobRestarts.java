package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.FailurePolicy;
import dev.gpucomm.api.v1alpha1.RestartCause;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * spec.failurePolicy at work: whether a run's failure starts the job afresh, and whether a restart
 * is under way. A restart is marked by the Restarting condition, True from the failure until the
 * new run's pods are made, so that a failure is counted once however often the job is reconciled
 * while its failed run's pods go.
 */
final class JobRestarts {
  private JobRestarts() {}

  /**
   * What {@code failure}, just judged, makes of the job: a restart when its policy restarts that
   * kind of failure and restarts are left; else the failure itself, which says so when the restarts
   * are spent.
   */
  static JobOutcome afterFailure(CommJob job, CommJobStatus status, JobOutcome.Failed failure) {
    FailurePolicy policy = job.getSpec().getFailurePolicy();
    Optional<RestartCause> cause = causeOf(failure);
    if (policy == null || cause.isEmpty() || !restartOn(policy).contains(cause.get())) {
      return failure;
    }
    int maxRestarts = Objects.requireNonNullElse(policy.getMaxRestarts(), 0);
    int made = made(status);
    if (made >= maxRestarts) {
      return maxRestarts == 0
          ? failure
          : new JobOutcome.Failed(
              failure.reason(),
              failure.message()
                  + "; no restart left (%d of spec.failurePolicy.maxRestarts %d made)"
                      .formatted(made, maxRestarts),
              failure.disruption());
    }
    return new JobOutcome.Restarting(
        failure.reason(),
        "restart %d of %d after %s: %s"
            .formatted(made + 1, maxRestarts, failure.reason(), failure.message()),
        made + 1);
  }

  /** The restart the status marks as under way, if any. */
  static Optional<JobOutcome.Restarting> underway(CommJobStatus status) {
    if (status == null) {
      return Optional.empty();
    }
    return ConditionList.find(status.getConditions(), Reasons.RESTARTING)
        .filter(c -> ConditionList.TRUE.equals(c.getStatus()))
        .map(
            c ->
                new JobOutcome.Restarting(
                    Objects.requireNonNullElse(c.getReason(), Reasons.JOB_FAILED),
                    Objects.requireNonNullElse(c.getMessage(), ""),
                    Math.max(1, made(status))));
  }

  /** How many restarts the status records. */
  static int made(CommJobStatus status) {
    return status == null || status.getRestarts() == null ? 0 : status.getRestarts();
  }

  /**
   * Which of the policy's kinds {@code failure} is: a pod taken away is a disruption whatever the
   * reason it was judged under (a pod evicted by its kubelet fails as RankFailed).
   */
  static Optional<RestartCause> causeOf(JobOutcome.Failed failure) {
    if (failure.disruption() || Reasons.POD_DELETED.equals(failure.reason())) {
      return Optional.of(RestartCause.DISRUPTION);
    }
    return switch (failure.reason()) {
      case Reasons.RANK_FAILED -> Optional.of(RestartCause.RANK_FAILED);
      case Reasons.TIMEOUT -> Optional.of(RestartCause.TIMEOUT);
      default -> Optional.empty();
    };
  }

  private static List<RestartCause> restartOn(FailurePolicy policy) {
    return policy.getRestartOn() == null || policy.getRestartOn().isEmpty()
        ? CommJobDefaults.RESTART_ON
        : policy.getRestartOn();
  }
}
