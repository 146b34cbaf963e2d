package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** The kind of work a CommJob runs. */
public enum WorkloadKind {
  @JsonProperty("benchmark")
  BENCHMARK("benchmark"),
  @JsonProperty("program")
  PROGRAM("program"),
  @JsonProperty("tune")
  TUNE("tune"),
  @JsonProperty("fabric")
  FABRIC("fabric");

  private final String wireName;

  WorkloadKind(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<WorkloadKind> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(WorkloadKind::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
