package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Collective algorithms; auto asks the job's heuristic. */
public enum Algorithm {
  @JsonProperty("auto")
  AUTO("auto"),
  @JsonProperty("nccl")
  NCCL("nccl"),
  @JsonProperty("oneshot")
  ONESHOT("oneshot"),
  @JsonProperty("twoshot")
  TWOSHOT("twoshot"),
  @JsonProperty("ring")
  RING("ring");

  private final String wireName;

  Algorithm(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<Algorithm> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(Algorithm::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
