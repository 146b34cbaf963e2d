package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * One pass/fail floor of spec.expect, such as "all-reduce at 64Mi reaches 350 GB/s bus bandwidth",
 * checked against the measured figures without a baseline.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.minBusBandwidthGBps) || has(self.maxLatencyMicros)",
    message = "an expect rule needs minBusBandwidthGBps or maxLatencyMicros")
public class Expectation {
  @Required
  @JsonPropertyDescription(
      "The collective the rule is about; must be the one the benchmark sweeps.")
  private Collective collective;

  @Required
  @Pattern("^[0-9]+(Ki|Mi|Gi)?$")
  @JsonPropertyDescription(
      "Message size per rank the rule checks, in bytes or as a quantity (64Mi); must be one the benchmark measures.")
  private String bytes;

  @JsonPropertyDescription(
      "The algorithm whose figure is checked; the fastest measured at that size when omitted.")
  private Algorithm algorithm;

  @Min(0)
  @JsonPropertyDescription(
      "Floor: the bus bandwidth (nccl-tests definition) must reach this many GB/s.")
  private Double minBusBandwidthGBps;

  @Min(0)
  @JsonPropertyDescription("Ceiling: the median latency must not exceed this many microseconds.")
  private Double maxLatencyMicros;

  public Collective getCollective() {
    return collective;
  }

  public void setCollective(Collective collective) {
    this.collective = collective;
  }

  public Expectation withCollective(Collective collective) {
    this.collective = collective;
    return this;
  }

  public String getBytes() {
    return bytes;
  }

  public void setBytes(String bytes) {
    this.bytes = bytes;
  }

  public Expectation withBytes(String bytes) {
    this.bytes = bytes;
    return this;
  }

  public Algorithm getAlgorithm() {
    return algorithm;
  }

  public void setAlgorithm(Algorithm algorithm) {
    this.algorithm = algorithm;
  }

  public Expectation withAlgorithm(Algorithm algorithm) {
    this.algorithm = algorithm;
    return this;
  }

  public Double getMinBusBandwidthGBps() {
    return minBusBandwidthGBps;
  }

  public void setMinBusBandwidthGBps(Double minBusBandwidthGBps) {
    this.minBusBandwidthGBps = minBusBandwidthGBps;
  }

  public Expectation withMinBusBandwidthGBps(Double minBusBandwidthGBps) {
    this.minBusBandwidthGBps = minBusBandwidthGBps;
    return this;
  }

  public Double getMaxLatencyMicros() {
    return maxLatencyMicros;
  }

  public void setMaxLatencyMicros(Double maxLatencyMicros) {
    this.maxLatencyMicros = maxLatencyMicros;
  }

  public Expectation withMaxLatencyMicros(Double maxLatencyMicros) {
    this.maxLatencyMicros = maxLatencyMicros;
    return this;
  }
}
