package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
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
      "How many times the job starts afresh after a failure that restartOn names: its pods,"
          + " the failed ranks' included, and its report are deleted, and once the pods are gone"
          + " the job starts from its spec as it is then, each run with its own timeoutSeconds."
          + " 0 fails the job at its first failure. status.restarts counts the restarts made.")
  private Integer maxRestarts;

  @Size(min = 1, max = 3)
  @ValidationRule(
      value = "self.all(cause, self.exists_one(other, other == cause))",
      message = "names a kind of failure twice")
  @JsonPropertyDescription(
      "Which failures restart the job: Disruption (a pod deleted, preempted, or evicted by"
          + " its kubelet for the node's sake, whether it failed or its peers' ranks did on its"
          + " silence),"
          + " RankFailed (a rank exited with an error, a result that failed validation"
          + " included) and Timeout (the run passed spec.timeoutSeconds); [Disruption] when"
          + " omitted. A node that stops answering shows first as its peers' RankFailed: its"
          + " pod goes only minutes later. Other failures (an invalid spec, an unexpected"
          + " transport, pods that cannot be scheduled or never all start) fail the job at once:"
          + " they would fail again.")
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
