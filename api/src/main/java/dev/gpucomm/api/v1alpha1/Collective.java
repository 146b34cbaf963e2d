package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Collective operations a benchmark can sweep. */
public enum Collective {
  @JsonProperty("allreduce")
  ALLREDUCE("allreduce"),
  @JsonProperty("allgather")
  ALLGATHER("allgather"),
  @JsonProperty("reducescatter")
  REDUCESCATTER("reducescatter"),
  @JsonProperty("broadcast")
  BROADCAST("broadcast"),
  @JsonProperty("collectivepermute")
  COLLECTIVEPERMUTE("collectivepermute");

  private final String wireName;

  Collective(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<Collective> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(Collective::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
