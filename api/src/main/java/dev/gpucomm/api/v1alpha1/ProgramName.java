package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Host-IR programs a CommJob can run. */
public enum ProgramName {
  @JsonProperty("rowParallelLinear")
  ROW_PARALLEL_LINEAR("rowParallelLinear"),
  @JsonProperty("columnParallelLinear")
  COLUMN_PARALLEL_LINEAR("columnParallelLinear"),
  @JsonProperty("collectivePermute")
  COLLECTIVE_PERMUTE("collectivePermute");

  private final String wireName;

  ProgramName(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<ProgramName> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(ProgramName::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
