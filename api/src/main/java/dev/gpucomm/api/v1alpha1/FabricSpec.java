package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * A fabric sweep: every GPU pair inside each node and every pair of pods, measured pair by pair.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.bytes) || self.bytes % 16 == 0",
    message = "fabric.bytes is whole 16-byte vectors, a multiple of 16")
public class FabricSpec {
  @Default("" + CommJobDefaults.FABRIC_BYTES)
  @Min(16)
  @Max(1073741824)
  @JsonPropertyDescription(
      "Bytes each copy or message moves in the bandwidth tests; 4Mi when omitted.")
  private Long bytes;

  @Default("" + CommJobDefaults.FABRIC_ITERATIONS)
  @Min(1)
  @Max(10000)
  @JsonPropertyDescription("Timed repetitions per pair and direction; the median is reported.")
  private Integer iterations;

  @Default("" + CommJobDefaults.FABRIC_SLOW_FRACTION)
  @Min(0)
  @Max(1)
  @JsonPropertyDescription(
      "A pair below this fraction of the median of its matrix is flagged as slow (sets Degraded).")
  private Double slowFraction;

  public Long getBytes() {
    return bytes;
  }

  public void setBytes(Long bytes) {
    this.bytes = bytes;
  }

  public FabricSpec withBytes(Long bytes) {
    this.bytes = bytes;
    return this;
  }

  public Integer getIterations() {
    return iterations;
  }

  public void setIterations(Integer iterations) {
    this.iterations = iterations;
  }

  public FabricSpec withIterations(Integer iterations) {
    this.iterations = iterations;
    return this;
  }

  public Double getSlowFraction() {
    return slowFraction;
  }

  public void setSlowFraction(Double slowFraction) {
    this.slowFraction = slowFraction;
  }

  public FabricSpec withSlowFraction(Double slowFraction) {
    this.slowFraction = slowFraction;
    return this;
  }
}
