package dev.gpucomm.operator;

import java.time.Duration;
import java.util.Optional;

/** Where a job stands, as {@link JobOutcomeJudge} decides it before the workflow runs. */
public sealed interface JobOutcome {

  /** Whether the job has finished, one way or the other. */
  default boolean finished() {
    return !(this instanceof InProgress || this instanceof Suspended || this instanceof Restarting);
  }

  /** Not finished; {@code recheckAfter} is when a pod's scheduling deadline falls due. */
  record InProgress(Optional<Duration> recheckAfter) implements JobOutcome {}

  /**
   * spec.suspend is set on a job that has not finished: it has no pods, and starts afresh when
   * unsuspended.
   */
  record Suspended() implements JobOutcome {}

  /**
   * A run failed in a way spec.failurePolicy restarts: its pods and spec ConfigMap go, and once
   * they have gone the job starts afresh. {@code reason} is the failure's; {@code message} says
   * which restart this is and what failed; {@code restart} counts the restarts, this one included.
   */
  record Restarting(String reason, String message, int restart) implements JobOutcome {}

  /** Every pod succeeded. */
  record Succeeded() implements JobOutcome {}

  /**
   * The job failed; {@code reason} is one of the {@link Reasons} constants. {@code disruption}: it
   * failed because a pod was taken away (deleted, preempted, evicted), whatever its reason says.
   */
  record Failed(String reason, String message, boolean disruption) implements JobOutcome {
    Failed(String reason, String message) {
      this(reason, message, false);
    }
  }
}
