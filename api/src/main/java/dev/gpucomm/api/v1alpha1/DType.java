package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/** Element types of collective buffers; reductions accumulate in fp32. */
public enum DType {
  @JsonProperty("bf16")
  BF16("bf16", 2),
  @JsonProperty("fp16")
  FP16("fp16", 2),
  @JsonProperty("fp32")
  FP32("fp32", 4);

  private final String wireName;
  private final int bytes;

  DType(String wireName, int bytes) {
    this.wireName = wireName;
    this.bytes = bytes;
  }

  /** Size of one element in bytes. */
  public int bytes() {
    return bytes;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<DType> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(DType::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
