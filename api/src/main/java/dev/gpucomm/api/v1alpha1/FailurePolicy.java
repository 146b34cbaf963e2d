package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * Whether a failed run of the job starts again, as JobSet's failurePolicy does: the whole job, all
 * of its pods deleted and created afresh, since a rank cannot rejoin a running communicator.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FailurePolicy {
  @Default("" + CommJobDefaults.MAX_RESTARTS)
  @Min(0)
  @Max(100)
  @JsonPropertyDescription(
      "How many times the job starts afresh after a failure that restartOn names: its pods are"
          + " deleted, and once they are gone created again, each run with its own"
          + " timeoutSeconds. 0 fails the job at its first failure. status.restarts counts the"
          + " restarts made.")
  private Integer maxRestarts;

  @Size(min = 1, max = 3)
  @JsonPropertyDescription(
      "Which failures restart the job: Disruption (a pod deleted, preempted, evicted by its"
          + " kubelet or lost with its node), RankFailed (a rank exited with an error, a result"
          + " that failed validation included) and Timeout (spec.timeoutSeconds passed);"
          + " [Disruption] when omitted. Other failures (an invalid spec, an unexpected"
          + " transport, pods that cannot be scheduled or started) fail the job at once: they"
          + " would fail again.")
  private List<RestartCause> restartOn;

  public Integer getMaxRestarts() {
    return maxRestarts;
  }

  public void setMaxRestarts(Integer maxRestarts) {
    this.maxRestarts = maxRestarts;
  }

  public FailurePolicy withMaxRestarts(Integer maxRestarts) {
    this.maxRestarts = maxRestarts;
    return this;
  }

  public List<RestartCause> getRestartOn() {
    return restartOn;
  }

  public void setRestartOn(List<RestartCause> restartOn) {
    this.restartOn = restartOn;
  }

  public FailurePolicy withRestartOn(List<RestartCause> restartOn) {
    this.restartOn = restartOn;
    return this;
  }
}
