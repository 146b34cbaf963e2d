package dev.gpucomm.operator;

import java.time.Duration;
import java.util.Optional;

/** Where a job stands, as {@link JobOutcomeJudge} decides it before the workflow runs. */
public sealed interface JobOutcome {

  /** Whether the job has finished, one way or the other. */
  default boolean finished() {
    return !(this instanceof InProgress || this instanceof Suspended);
  }

  /** Not finished; {@code recheckAfter} is when a pod's scheduling deadline falls due. */
  record InProgress(Optional<Duration> recheckAfter) implements JobOutcome {}

  /**
   * spec.suspend is set on a job that has not finished: it has no pods, and starts afresh when
   * unsuspended.
   */
  record Suspended() implements JobOutcome {}

  /** Every pod succeeded. */
  record Succeeded() implements JobOutcome {}

  /** The job failed; {@code reason} is one of the {@link Reasons} constants. */
  record Failed(String reason, String message) implements JobOutcome {}
}
