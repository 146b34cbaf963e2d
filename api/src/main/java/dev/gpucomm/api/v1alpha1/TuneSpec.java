package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** A tuning sweep: measures each algorithm per size and records where the fastest one changes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!(has(self.tokens) && has(self.sizes))",
    message = "tune takes tokens or sizes, not both")
@ValidationRule(
    value =
        "!has(self.tokens) || !has(self.hiddenSize) || self.tokens.all(t, t > 2147483647 || t * self.hiddenSize * (has(self.dtype) && self.dtype == 'fp32' ? 4 : 2) <= 8589934592)",
    message =
        "tune: tokens x hiddenSize x the dtype's bytes is at most 8 GiB (8589934592 bytes) per rank")
@ValidationRule(
    value = "!has(self.sizes) || self.sizes.all(s, s <= 8589934592)",
    message = "tune: sizes are at most 8 GiB (8589934592 bytes) per rank")
@ValidationRule(
    value = "!has(self.sizes) || self.sizes.all(s, s >= 16 && s % 16 == 0)",
    message = "tune: sizes are whole 16-byte vectors, multiples of 16 from 16")
@ValidationRule(
    value = "!has(self.tokens) || self.tokens.all(t, t >= 1 && t <= 2147483647)",
    message = "tune: tokens are from 1 to 2147483647")
@ValidationRule(
    value =
        "!has(self.algorithms) || !('copyengine' in self.algorithms) || (has(self.collective) && self.collective in ['allgather', 'reducescatter'])",
    message = "tune: copyengine runs allgather and reducescatter only")
@ValidationRule(
    value = "!has(self.algorithms) || !('auto' in self.algorithms)",
    message = "tune: auto is not a candidate (tune measures the algorithms auto chooses from)")
@ValidationRule(
    value =
        "!has(self.collective) || self.collective in ['allreduce', 'allgather', 'reducescatter']",
    message = "tune measures allreduce, allgather or reducescatter")
@ValidationRule(
    value =
        "!has(self.tokens) || !has(self.hiddenSize) || self.tokens.all(t, t > 2147483647 || t * self.hiddenSize * (has(self.dtype) && self.dtype == 'fp32' ? 4 : 2) % 16 == 0)",
    message =
        "tune: tokens x hiddenSize x the dtype's bytes is a multiple of 16 (the ranks move 16-byte vectors)")
@ValidationRule(
    value =
        "!has(self.fp8Scale) || (has(self.pattern) && self.pattern == 'allreduceResidualRmsNormFp8')",
    message = "tune.fp8Scale applies to pattern allreduceResidualRmsNormFp8 only")
@ValidationRule(
    value =
        "!has(self.fp32Accumulate) || self.fp32Accumulate || (has(self.pattern) && self.pattern != 'allreduce')",
    message = "tune.fp32Accumulate false applies to the fused patterns only")
public class TuneSpec {
  @Default(CommJobDefaults.COLLECTIVE_NAME)
  @JsonPropertyDescription(
      "The collective to tune: allreduce, allgather or reducescatter; its table serves auto for"
          + " that collective.")
  private Collective collective;

  @Default(CommJobDefaults.DTYPE_NAME)
  @JsonPropertyDescription("Element type of the sweep.")
  private DType dtype;

  @Default("" + CommJobDefaults.HIDDEN_SIZE)
  @Min(1)
  @Max(1048576)
  @JsonPropertyDescription("Elements per token.")
  private Integer hiddenSize;

  @Size(min = 1, max = 64)
  @JsonPropertyDescription(
      "Token counts to sweep; 32 to 4096 (doubling) when neither tokens nor sizes is set.")
  private List<Integer> tokens;

  @Size(min = 1, max = 64)
  @JsonPropertyDescription("Message sizes in bytes to sweep.")
  private List<Long> sizes;

  @Size(min = 1, max = 8)
  @JsonPropertyDescription(
      "Candidate algorithms; every one available for the collective (nccl, oneshot and twoshot for"
          + " allreduce; nccl, oneshot and copyengine for allgather and reducescatter) when omitted.")
  private List<Algorithm> algorithms;

  @Default("" + CommJobDefaults.TUNE_WARMUP)
  @Min(0)
  @Max(100000)
  @JsonPropertyDescription("Untimed calls per point.")
  private Integer warmupIterations;

  @Default("" + CommJobDefaults.TUNE_ITERATIONS)
  @Min(1)
  @Max(1000000)
  @JsonPropertyDescription("Timed calls per point; the median is used.")
  private Integer iterations;

  @JsonPropertyDescription(
      "Name of the tuning table written (a ConfigMap in a cluster, a file locally); the job's name when omitted.")
  private String tableName;

  @JsonPropertyDescription(
      "All-reduce only: tune the plain allreduce (when omitted) or a fused pattern, allreduceResidualRmsNorm or allreduceResidualRmsNormFp8, to compare where the fastest algorithm changes.")
  private AllReducePattern pattern;

  @JsonPropertyDescription(
      "Fused patterns: sum the ranks in fp32 (true, when omitted) or in the element type (false).")
  private Boolean fp32Accumulate;

  @Min(1e-12)
  @Max(1e12)
  @JsonPropertyDescription(
      "Per-tensor scale of the FP8 output of allreduceResidualRmsNormFp8: the stored value is the normalized output divided by it.")
  private Double fp8Scale;

  public AllReducePattern getPattern() {
    return pattern;
  }

  public void setPattern(AllReducePattern pattern) {
    this.pattern = pattern;
  }

  public TuneSpec withPattern(AllReducePattern pattern) {
    this.pattern = pattern;
    return this;
  }

  public Boolean getFp32Accumulate() {
    return fp32Accumulate;
  }

  public void setFp32Accumulate(Boolean fp32Accumulate) {
    this.fp32Accumulate = fp32Accumulate;
  }

  public TuneSpec withFp32Accumulate(Boolean fp32Accumulate) {
    this.fp32Accumulate = fp32Accumulate;
    return this;
  }

  public Double getFp8Scale() {
    return fp8Scale;
  }

  public void setFp8Scale(Double fp8Scale) {
    this.fp8Scale = fp8Scale;
  }

  public TuneSpec withFp8Scale(Double fp8Scale) {
    this.fp8Scale = fp8Scale;
    return this;
  }

  public Collective getCollective() {
    return collective;
  }

  public void setCollective(Collective collective) {
    this.collective = collective;
  }

  public DType getDtype() {
    return dtype;
  }

  public void setDtype(DType dtype) {
    this.dtype = dtype;
  }

  public TuneSpec withDtype(DType dtype) {
    this.dtype = dtype;
    return this;
  }

  public Integer getHiddenSize() {
    return hiddenSize;
  }

  public void setHiddenSize(Integer hiddenSize) {
    this.hiddenSize = hiddenSize;
  }

  public TuneSpec withHiddenSize(Integer hiddenSize) {
    this.hiddenSize = hiddenSize;
    return this;
  }

  public List<Integer> getTokens() {
    return tokens;
  }

  public void setTokens(List<Integer> tokens) {
    this.tokens = tokens;
  }

  public TuneSpec withTokens(List<Integer> tokens) {
    this.tokens = tokens;
    return this;
  }

  public List<Long> getSizes() {
    return sizes;
  }

  public void setSizes(List<Long> sizes) {
    this.sizes = sizes;
  }

  public TuneSpec withSizes(List<Long> sizes) {
    this.sizes = sizes;
    return this;
  }

  public List<Algorithm> getAlgorithms() {
    return algorithms;
  }

  public void setAlgorithms(List<Algorithm> algorithms) {
    this.algorithms = algorithms;
  }

  public TuneSpec withAlgorithms(List<Algorithm> algorithms) {
    this.algorithms = algorithms;
    return this;
  }

  public Integer getWarmupIterations() {
    return warmupIterations;
  }

  public void setWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
  }

  public TuneSpec withWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
    return this;
  }

  public Integer getIterations() {
    return iterations;
  }

  public void setIterations(Integer iterations) {
    this.iterations = iterations;
  }

  public TuneSpec withIterations(Integer iterations) {
    this.iterations = iterations;
    return this;
  }

  public String getTableName() {
    return tableName;
  }

  public void setTableName(String tableName) {
    this.tableName = tableName;
  }

  public TuneSpec withTableName(String tableName) {
    this.tableName = tableName;
    return this;
  }
}
