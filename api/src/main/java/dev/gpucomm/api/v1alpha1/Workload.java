package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** What the ranks of a CommJob run. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.kind != 'benchmark' || has(self.benchmark)",
    message = "workload.benchmark is required when workload.kind is benchmark")
@ValidationRule(
    value = "self.kind != 'program' || has(self.program)",
    message = "workload.program is required when workload.kind is program")
@ValidationRule(
    value = "self.kind != 'tune' || has(self.tune)",
    message = "workload.tune is required when workload.kind is tune")
@ValidationRule(
    value = "self.kind != 'fabric' || has(self.fabric)",
    message = "workload.fabric is required when workload.kind is fabric")
// a section left over from another kind would otherwise be checked, and refused, for its own rules
@ValidationRule(
    value =
        "(self.kind == 'benchmark' || !has(self.benchmark)) && (self.kind == 'program' || !has(self.program))"
            + " && (self.kind == 'tune' || !has(self.tune)) && (self.kind == 'fabric' || !has(self.fabric))",
    message =
        "workload holds only the section of its kind: benchmark, program, tune or fabric as"
            + " workload.kind says")
public class Workload {
  @Required
  @JsonPropertyDescription(
      "benchmark, program, tune or fabric; the section of the same name holds its settings.")
  private WorkloadKind kind;

  @JsonPropertyDescription("A sweep of one collective over sizes and algorithms.")
  private BenchmarkSpec benchmark;

  @JsonPropertyDescription("A host-IR program, run with and without its passes.")
  private ProgramSpec program;

  @JsonPropertyDescription(
      "A sweep that measures where one algorithm overtakes another; writes a tuning table.")
  private TuneSpec tune;

  @JsonPropertyDescription(
      "A sweep of the fabric pair by pair: GPU pairs inside each node, pods against each other; names a slow node, link or GPU pair.")
  private FabricSpec fabric;

  public WorkloadKind getKind() {
    return kind;
  }

  public void setKind(WorkloadKind kind) {
    this.kind = kind;
  }

  public Workload withKind(WorkloadKind kind) {
    this.kind = kind;
    return this;
  }

  public BenchmarkSpec getBenchmark() {
    return benchmark;
  }

  public void setBenchmark(BenchmarkSpec benchmark) {
    this.benchmark = benchmark;
  }

  public Workload withBenchmark(BenchmarkSpec benchmark) {
    this.benchmark = benchmark;
    return this;
  }

  public ProgramSpec getProgram() {
    return program;
  }

  public void setProgram(ProgramSpec program) {
    this.program = program;
  }

  public Workload withProgram(ProgramSpec program) {
    this.program = program;
    return this;
  }

  public TuneSpec getTune() {
    return tune;
  }

  public void setTune(TuneSpec tune) {
    this.tune = tune;
  }

  public Workload withTune(TuneSpec tune) {
    this.tune = tune;
    return this;
  }

  public FabricSpec getFabric() {
    return fabric;
  }

  public void setFabric(FabricSpec fabric) {
    this.fabric = fabric;
  }

  public Workload withFabric(FabricSpec fabric) {
    this.fabric = fabric;
    return this;
  }
}
