package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Rules that choose the algorithm for auto. */
public enum HeuristicName {
  @JsonProperty("trtllm")
  TRTLLM("trtllm"),
  @JsonProperty("vllm")
  VLLM("vllm"),
  @JsonProperty("measured")
  MEASURED("measured"),
  @JsonProperty("fixed")
  FIXED("fixed");

  private final String wireName;

  HeuristicName(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<HeuristicName> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(HeuristicName::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
