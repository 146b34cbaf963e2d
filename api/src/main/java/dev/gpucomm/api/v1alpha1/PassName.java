package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Host-IR passes, applied in the order given. */
public enum PassName {
  @JsonProperty("assignStreams")
  ASSIGN_STREAMS("assignStreams"),
  @JsonProperty("collectivePermuteAllgather")
  COLLECTIVE_PERMUTE_ALLGATHER("collectivePermuteAllgather"),
  @JsonProperty("broadcastAllgather")
  BROADCAST_ALLGATHER("broadcastAllgather"),
  @JsonProperty("p2pRingPipeline")
  P2P_RING_PIPELINE("p2pRingPipeline");

  private final String wireName;

  PassName(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<PassName> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(PassName::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
