package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.RestartCause;
import java.time.Duration;
import java.util.Optional;

/** Where a job stands, as {@link JobOutcomeJudge} decides it before the workflow runs. */
public sealed interface JobOutcome {

  /** Whether the job has finished, one way or the other. */
  default boolean finished() {
    return !(this instanceof InProgress || this instanceof Suspended || this instanceof Restarting);
  }

  /**
   * Not finished; {@code recheckAfter} is when a pod's scheduling deadline falls due, {@code
   * waitingForNode} what a pod past that deadline waits for: a node an autoscaler is bringing.
   */
  record InProgress(Optional<Duration> recheckAfter, Optional<String> waitingForNode)
      implements JobOutcome {
    InProgress(Optional<Duration> recheckAfter) {
      this(recheckAfter, Optional.empty());
    }
  }

  /**
   * spec.suspend is set on a job that has not finished: it has no pods, and starts afresh when
   * unsuspended.
   */
  record Suspended() implements JobOutcome {}

  /**
   * A run failed in a way spec.failurePolicy restarts: its pods and spec ConfigMap go, and once
   * they have gone the job starts afresh. {@code cause} is the policy's kind of failure; {@code
   * message} says which restart this is and what failed; {@code restart} counts the restarts, this
   * one included.
   */
  record Restarting(RestartCause cause, String message, int restart) implements JobOutcome {}

  /** Every pod succeeded. */
  record Succeeded() implements JobOutcome {}

  /**
   * The job failed; {@code reason} is one of the {@link Reasons} constants. {@code restartableAs}:
   * the kind of failure spec.failurePolicy may restart it for, decided where it is judged (a pod
   * its kubelet evicted fails as RankFailed, yet was taken away); empty for a failure that would
   * recur, such as an invalid spec or pods that never all started.
   */
  record Failed(String reason, String message, Optional<RestartCause> restartableAs)
      implements JobOutcome {
    Failed(String reason, String message) {
      this(reason, message, Optional.empty());
    }
  }
}
