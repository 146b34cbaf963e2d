package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Lifecycle phase of a CommJob. */
public enum Phase {
  @JsonProperty("Pending")
  PENDING("Pending"),
  @JsonProperty("Running")
  RUNNING("Running"),
  @JsonProperty("Succeeded")
  SUCCEEDED("Succeeded"),
  @JsonProperty("Failed")
  FAILED("Failed");

  private final String wireName;

  Phase(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<Phase> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(Phase::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
