package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Optional;

/**
 * What an all-reduce benchmark computes around the sum: the plain all-reduce, or the transformer
 * layer's epilogue fused into it, out = RMSNorm(allreduce(x) + residual) · γ per token row, with
 * the updated residual written back, and optionally the output quantized to FP8 (e4m3) with a given
 * per-tensor scale.
 */
public enum AllReducePattern {
  @JsonProperty("allreduce")
  ALLREDUCE("allreduce", false, false),
  @JsonProperty("allreduceResidualRmsNorm")
  ALLREDUCE_RESIDUAL_RMS_NORM("allreduceResidualRmsNorm", true, false),
  @JsonProperty("allreduceResidualRmsNormFp8")
  ALLREDUCE_RESIDUAL_RMS_NORM_FP8("allreduceResidualRmsNormFp8", true, true);

  private final String wireName;
  private final boolean normalizes;
  private final boolean quantizesToFp8;

  AllReducePattern(String wireName, boolean normalizes, boolean quantizesToFp8) {
    this.wireName = wireName;
    this.normalizes = normalizes;
    this.quantizesToFp8 = quantizesToFp8;
  }

  /** Whether the pattern adds the residual and applies RMSNorm per token row after the sum. */
  public boolean normalizes() {
    return normalizes;
  }

  /** Whether the normalized output is stored as FP8 e4m3 (one byte per element). */
  public boolean quantizesToFp8() {
    return quantizesToFp8;
  }

  /** The name used in YAML, JSON and on the command line. */
  public String wireName() {
    return wireName;
  }

  /** The constant whose wire name is {@code text}, if any. */
  public static Optional<AllReducePattern> fromWireName(String text) {
    return Arrays.stream(values()).filter(v -> v.wireName.equals(text)).findFirst();
  }

  /** All wire names, for error messages. */
  public static String wireNames() {
    return String.join(", ", Arrays.stream(values()).map(AllReducePattern::wireName).toList());
  }

  @Override
  public String toString() {
    return wireName;
  }
}
