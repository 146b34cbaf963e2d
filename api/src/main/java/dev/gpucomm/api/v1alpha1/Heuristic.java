package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;

/** How auto picks an algorithm for each size. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.name != 'fixed' || has(self.fixedAlgorithm)",
    message = "heuristic.fixedAlgorithm is required when heuristic.name is fixed")
@ValidationRule(
    value = "self.name != 'measured' || has(self.tuningRef)",
    message = "heuristic.tuningRef is required when heuristic.name is measured")
public class Heuristic {
  @Default(CommJobDefaults.HEURISTIC_NAME)
  @JsonPropertyDescription(
      "trtllm (FlashInfer/TensorRT-LLM one-shot threshold), vllm (vLLM dispatch by compute capability), measured (a tuning table) or fixed.")
  private HeuristicName name;

  @JsonPropertyDescription("The algorithm that fixed always picks.")
  private Algorithm fixedAlgorithm;

  @JsonPropertyDescription(
      "The tuning table that measured reads: a ConfigMap name in a cluster, a file path locally.")
  private String tuningRef;

  public HeuristicName getName() {
    return name;
  }

  public void setName(HeuristicName name) {
    this.name = name;
  }

  public Heuristic withName(HeuristicName name) {
    this.name = name;
    return this;
  }

  public Algorithm getFixedAlgorithm() {
    return fixedAlgorithm;
  }

  public void setFixedAlgorithm(Algorithm fixedAlgorithm) {
    this.fixedAlgorithm = fixedAlgorithm;
  }

  public Heuristic withFixedAlgorithm(Algorithm fixedAlgorithm) {
    this.fixedAlgorithm = fixedAlgorithm;
    return this;
  }

  public String getTuningRef() {
    return tuningRef;
  }

  public void setTuningRef(String tuningRef) {
    this.tuningRef = tuningRef;
  }

  public Heuristic withTuningRef(String tuningRef) {
    this.tuningRef = tuningRef;
    return this;
  }
}
