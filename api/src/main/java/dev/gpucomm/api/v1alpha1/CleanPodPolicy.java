package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Which pods of a finished job the operator deletes, as MPIJob's cleanPodPolicy names them. */
public enum CleanPodPolicy {
  /** Pods still running or pending are deleted; finished pods stay (for their logs). */
  @JsonProperty("Running")
  RUNNING("Running"),
  /**
   * Every pod is deleted, except a failed job's failed pods: they are kept for their logs until
   * ttlSecondsAfterFinished removes the job.
   */
  @JsonProperty("All")
  ALL("All"),
  /** No pod is deleted: a hung rank stays for inspection until the job is deleted. */
  @JsonProperty("None")
  NONE("None");

  private final String wireName;

  CleanPodPolicy(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML and JSON. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<CleanPodPolicy> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  @Override
  public String toString() {
    return wireName;
  }
}
