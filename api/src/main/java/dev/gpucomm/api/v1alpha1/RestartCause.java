package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** A kind of failure after which spec.failurePolicy may start the job afresh. */
public enum RestartCause {
  /**
   * The job lost a pod to something outside it: deleted, preempted, evicted by its kubelet, or gone
   * with its node (the pod's DisruptionTarget condition, or its deletion mid-run).
   */
  @JsonProperty("Disruption")
  DISRUPTION("Disruption"),
  /** A rank exited with an error (reason RankFailed), a result that failed validation included. */
  @JsonProperty("RankFailed")
  RANK_FAILED("RankFailed"),
  /** The run did not finish within spec.timeoutSeconds (reason Timeout). */
  @JsonProperty("Timeout")
  TIMEOUT("Timeout");

  private final String wireName;

  RestartCause(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML and JSON. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<RestartCause> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  @Override
  public String toString() {
    return wireName;
  }
}
