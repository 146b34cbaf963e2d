package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Earlier results a run is compared with, for CI regression gates. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Baseline {
  @Required
  @Size(max = 253)
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
  @JsonPropertyDescription(
      "ConfigMap holding the baseline report.json (a results ConfigMap of an earlier job, or a copy).")
  private String configMapRef;

  @Default("5")
  @Min(0)
  @Max(1000)
  @JsonPropertyDescription(
      "A size slower than the baseline by more than this percentage sets Regressed=True.")
  private Double maxSlowdownPercent;

  public String getConfigMapRef() {
    return configMapRef;
  }

  public void setConfigMapRef(String configMapRef) {
    this.configMapRef = configMapRef;
  }

  public Baseline withConfigMapRef(String configMapRef) {
    this.configMapRef = configMapRef;
    return this;
  }

  public Double getMaxSlowdownPercent() {
    return maxSlowdownPercent;
  }

  public void setMaxSlowdownPercent(Double maxSlowdownPercent) {
    this.maxSlowdownPercent = maxSlowdownPercent;
  }

  public Baseline withMaxSlowdownPercent(Double maxSlowdownPercent) {
    this.maxSlowdownPercent = maxSlowdownPercent;
    return this;
  }
}
