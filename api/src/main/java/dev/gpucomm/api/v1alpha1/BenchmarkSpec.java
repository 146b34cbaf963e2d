package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** A sweep of one collective over message sizes and algorithms. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.tokens) != has(self.sizes)",
    message = "benchmark needs exactly one of tokens and sizes")
@ValidationRule(
    value =
        "!has(self.inPlace) || !self.inPlace || !has(self.collective) || self.collective == 'allreduce'",
    message = "benchmark.inPlace applies to allreduce only")
@ValidationRule(
    value =
        "!has(self.inPlace) || !self.inPlace || !has(self.algorithms) || self.algorithms.all(a, a != 'oneshot' && a != 'twoshot' && a != 'copyengine')",
    message = "benchmark.inPlace runs nccl (or auto), not oneshot, twoshot or copyengine")
@ValidationRule(
    value =
        "!has(self.pattern) || self.pattern == 'allreduce' || !has(self.collective) || self.collective == 'allreduce'",
    message = "benchmark.pattern applies to allreduce only")
@ValidationRule(
    value =
        "!has(self.pattern) || self.pattern == 'allreduce' || !has(self.inPlace) || !self.inPlace",
    message = "benchmark.pattern writes a separate output; it does not run inPlace")
@ValidationRule(
    value =
        "!has(self.pattern) || self.pattern != 'allreduceResidualRmsNormFp8' || has(self.fp8Scale)",
    message = "benchmark.pattern allreduceResidualRmsNormFp8 needs fp8Scale")
@ValidationRule(
    value =
        "!has(self.tokens) || !has(self.hiddenSize) || self.tokens.all(t, t > 2147483647 || t * self.hiddenSize * (has(self.dtype) && self.dtype == 'fp32' ? 4 : 2) <= 8589934592)",
    message =
        "benchmark: tokens x hiddenSize x the dtype's bytes is at most 8 GiB (8589934592 bytes) per rank")
@ValidationRule(
    value = "!has(self.sizes) || self.sizes.all(s, s <= 8589934592)",
    message = "benchmark: sizes are at most 8 GiB (8589934592 bytes) per rank")
@ValidationRule(
    value = "!has(self.sizes) || self.sizes.all(s, s >= 16 && s % 16 == 0)",
    message = "benchmark: sizes are whole 16-byte vectors, multiples of 16 from 16")
@ValidationRule(
    value = "!has(self.tokens) || self.tokens.all(t, t >= 1 && t <= 2147483647)",
    message = "benchmark: tokens are from 1 to 2147483647")
@ValidationRule(
    value =
        "!has(self.algorithms) || !('copyengine' in self.algorithms) || (has(self.collective) && self.collective in ['allgather', 'reducescatter'])",
    message = "benchmark: copyengine runs allgather and reducescatter only")
@ValidationRule(
    value =
        "!has(self.tokens) || !has(self.hiddenSize) || self.tokens.all(t, t > 2147483647 || t * self.hiddenSize * (has(self.dtype) && self.dtype == 'fp32' ? 4 : 2) % 16 == 0)",
    message =
        "benchmark: tokens x hiddenSize x the dtype's bytes is a multiple of 16 (the ranks move 16-byte vectors)")
@ValidationRule(
    value =
        "!has(self.fp8Scale) || (has(self.pattern) && self.pattern == 'allreduceResidualRmsNormFp8')",
    message = "benchmark.fp8Scale applies to pattern allreduceResidualRmsNormFp8 only")
@ValidationRule(
    value =
        "!has(self.fp32Accumulate) || self.fp32Accumulate || (has(self.pattern) && self.pattern != 'allreduce')",
    message = "benchmark.fp32Accumulate false applies to the fused patterns only")
public class BenchmarkSpec {
  @Default(CommJobDefaults.COLLECTIVE_NAME)
  @JsonPropertyDescription(
      "The collective to sweep: allreduce, allgather, reducescatter, broadcast or collectivepermute.")
  private Collective collective;

  @Default(CommJobDefaults.DTYPE_NAME)
  @JsonPropertyDescription("Element type: bf16, fp16 or fp32 (reductions accumulate in fp32).")
  private DType dtype;

  @Default("" + CommJobDefaults.HIDDEN_SIZE)
  @Min(1)
  @Max(1048576)
  @JsonPropertyDescription("Elements per token; a size is tokens x hiddenSize elements.")
  private Integer hiddenSize;

  @Size(min = 1, max = 64)
  @JsonPropertyDescription("Token counts to sweep (each rank's tensor is tokens x hiddenSize).")
  private List<Integer> tokens;

  @Size(min = 1, max = 64)
  @JsonPropertyDescription("Message sizes in bytes to sweep, instead of tokens; multiples of 16.")
  private List<Long> sizes;

  @Size(min = 1, max = 8)
  @JsonPropertyDescription(
      "Algorithms to measure: auto, nccl, oneshot, twoshot, ring, hierarchical, copyengine (allgather and reducescatter); auto, nccl, oneshot and twoshot when omitted.")
  private List<Algorithm> algorithms;

  @Default("" + CommJobDefaults.BENCHMARK_WARMUP)
  @Min(0)
  @Max(100000)
  @JsonPropertyDescription("Untimed calls before timing each size and algorithm.")
  private Integer warmupIterations;

  @Default("" + CommJobDefaults.BENCHMARK_ITERATIONS)
  @Min(1)
  @Max(1000000)
  @JsonPropertyDescription("Timed calls per size and algorithm; the median is reported.")
  private Integer iterations;

  @Default("" + CommJobDefaults.CUDA_GRAPH)
  @JsonPropertyDescription(
      "Also time the calls captured in a CUDA graph and replayed (eager times are always reported).")
  private Boolean cudaGraph;

  @Default("" + CommJobDefaults.IN_PLACE)
  @JsonPropertyDescription(
      "All-reduce only: the output is the input buffer, as torch.distributed.all_reduce runs it (nccl-tests' in-place column); false times a separate output buffer, as vLLM's custom all-reduce runs it.")
  private Boolean inPlace;

  @JsonPropertyDescription("Seed of the random inputs; a fresh seed per run when omitted.")
  private Long seed;

  @Default(CommJobDefaults.PATTERN_NAME)
  @JsonPropertyDescription(
      "All-reduce only: allreduce, allreduceResidualRmsNorm (out = RMSNorm(allreduce(x) + residual) * gamma per token, residual updated) or allreduceResidualRmsNormFp8 (the same, output as FP8 e4m3 divided by fp8Scale).")
  private AllReducePattern pattern;

  @Default("" + CommJobDefaults.FP32_ACCUMULATE)
  @JsonPropertyDescription(
      "Fused patterns: sum the ranks in fp32 (true) or in the element type, rounding after each rank (false).")
  private Boolean fp32Accumulate;

  @Min(1e-12)
  @Max(1e12)
  @JsonPropertyDescription(
      "Per-tensor scale of the FP8 output: the stored value is the normalized output divided by it.")
  private Double fp8Scale;

  @Default("" + CommJobDefaults.OUTLIER_THRESHOLD_PERCENT)
  @Min(0)
  @Max(10000)
  @JsonPropertyDescription(
      "A rank behind the median of the other ranks by more than this percentage of their time per call is flagged as an outlier, with its node, in the report and status. Ranks are compared by their time per call outside the waits for each other where the backend measures it (cpu), else by their medians.")
  private Double outlierThresholdPercent;

  public Collective getCollective() {
    return collective;
  }

  public void setCollective(Collective collective) {
    this.collective = collective;
  }

  public BenchmarkSpec withCollective(Collective collective) {
    this.collective = collective;
    return this;
  }

  public DType getDtype() {
    return dtype;
  }

  public void setDtype(DType dtype) {
    this.dtype = dtype;
  }

  public BenchmarkSpec withDtype(DType dtype) {
    this.dtype = dtype;
    return this;
  }

  public Integer getHiddenSize() {
    return hiddenSize;
  }

  public void setHiddenSize(Integer hiddenSize) {
    this.hiddenSize = hiddenSize;
  }

  public BenchmarkSpec withHiddenSize(Integer hiddenSize) {
    this.hiddenSize = hiddenSize;
    return this;
  }

  public List<Integer> getTokens() {
    return tokens;
  }

  public void setTokens(List<Integer> tokens) {
    this.tokens = tokens;
  }

  public BenchmarkSpec withTokens(List<Integer> tokens) {
    this.tokens = tokens;
    return this;
  }

  public List<Long> getSizes() {
    return sizes;
  }

  public void setSizes(List<Long> sizes) {
    this.sizes = sizes;
  }

  public BenchmarkSpec withSizes(List<Long> sizes) {
    this.sizes = sizes;
    return this;
  }

  public List<Algorithm> getAlgorithms() {
    return algorithms;
  }

  public void setAlgorithms(List<Algorithm> algorithms) {
    this.algorithms = algorithms;
  }

  public BenchmarkSpec withAlgorithms(List<Algorithm> algorithms) {
    this.algorithms = algorithms;
    return this;
  }

  public Integer getWarmupIterations() {
    return warmupIterations;
  }

  public void setWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
  }

  public BenchmarkSpec withWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
    return this;
  }

  public Integer getIterations() {
    return iterations;
  }

  public void setIterations(Integer iterations) {
    this.iterations = iterations;
  }

  public BenchmarkSpec withIterations(Integer iterations) {
    this.iterations = iterations;
    return this;
  }

  public Boolean getCudaGraph() {
    return cudaGraph;
  }

  public void setCudaGraph(Boolean cudaGraph) {
    this.cudaGraph = cudaGraph;
  }

  public BenchmarkSpec withCudaGraph(Boolean cudaGraph) {
    this.cudaGraph = cudaGraph;
    return this;
  }

  public Boolean getInPlace() {
    return inPlace;
  }

  public void setInPlace(Boolean inPlace) {
    this.inPlace = inPlace;
  }

  public BenchmarkSpec withInPlace(Boolean inPlace) {
    this.inPlace = inPlace;
    return this;
  }

  public Long getSeed() {
    return seed;
  }

  public void setSeed(Long seed) {
    this.seed = seed;
  }

  public BenchmarkSpec withSeed(Long seed) {
    this.seed = seed;
    return this;
  }

  public AllReducePattern getPattern() {
    return pattern;
  }

  public void setPattern(AllReducePattern pattern) {
    this.pattern = pattern;
  }

  public BenchmarkSpec withPattern(AllReducePattern pattern) {
    this.pattern = pattern;
    return this;
  }

  public Boolean getFp32Accumulate() {
    return fp32Accumulate;
  }

  public void setFp32Accumulate(Boolean fp32Accumulate) {
    this.fp32Accumulate = fp32Accumulate;
  }

  public BenchmarkSpec withFp32Accumulate(Boolean fp32Accumulate) {
    this.fp32Accumulate = fp32Accumulate;
    return this;
  }

  public Double getFp8Scale() {
    return fp8Scale;
  }

  public void setFp8Scale(Double fp8Scale) {
    this.fp8Scale = fp8Scale;
  }

  public BenchmarkSpec withFp8Scale(Double fp8Scale) {
    this.fp8Scale = fp8Scale;
    return this;
  }

  public Double getOutlierThresholdPercent() {
    return outlierThresholdPercent;
  }

  public void setOutlierThresholdPercent(Double outlierThresholdPercent) {
    this.outlierThresholdPercent = outlierThresholdPercent;
  }

  public BenchmarkSpec withOutlierThresholdPercent(Double outlierThresholdPercent) {
    this.outlierThresholdPercent = outlierThresholdPercent;
    return this;
  }
}
