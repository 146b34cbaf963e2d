package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Transport of host-IR communications. */
public enum CommBackend {
  @JsonProperty("nccl")
  NCCL("nccl"),
  @JsonProperty("ipc")
  IPC("ipc");

  private final String wireName;

  CommBackend(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<CommBackend> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(CommBackend::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
