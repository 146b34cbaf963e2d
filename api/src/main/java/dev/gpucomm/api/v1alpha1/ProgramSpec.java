package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** A host-IR program, its shape and the passes applied to it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProgramSpec {
  @Required
  @JsonPropertyDescription("rowParallelLinear, columnParallelLinear or collectivePermute.")
  private ProgramName name;

  @JsonPropertyDescription(
      "Matrix sizes m, n, k of the program; each program documents its defaults.")
  private Shape shape;

  @Default("" + CommJobDefaults.PROGRAM_CHUNKS)
  @Min(1)
  @Max(64)
  @JsonPropertyDescription("Number of chunks of the stream-parallel loop.")
  private Integer chunks;

  @Size(max = 4)
  @JsonPropertyDescription(
      "Passes applied in order: assignStreams, collectivePermuteAllgather, broadcastAllgather, p2pRingPipeline.")
  private List<PassName> passes;

  @Default("" + CommJobDefaults.PROGRAM_STREAMS)
  @Min(1)
  @Max(32)
  @JsonPropertyDescription("Streams that assignStreams spreads loop iterations over.")
  private Integer streams;

  @Default(CommJobDefaults.DTYPE_NAME)
  @JsonPropertyDescription("Element type of the program's tensors.")
  private DType dtype;

  @Default(CommJobDefaults.PROGRAM_BACKEND_NAME)
  @JsonPropertyDescription("Transport of the program's communications: nccl or ipc.")
  private CommBackend backend;

  @Default("" + CommJobDefaults.PROGRAM_WARMUP)
  @Min(0)
  @Max(10000)
  @JsonPropertyDescription("Untimed runs of the program before timing.")
  private Integer warmupIterations;

  @Default("" + CommJobDefaults.PROGRAM_ITERATIONS)
  @Min(1)
  @Max(100000)
  @JsonPropertyDescription("Timed runs of the program; the median is reported.")
  private Integer iterations;

  @Default("" + CommJobDefaults.PROGRAM_COMMUNICATION_SMS)
  @Min(0)
  @Max(160)
  @JsonPropertyDescription(
      "Streaming multiprocessors kept for communication in the pipelined run: matmuls on worker"
          + " streams run on the GPU's SMs minus this, and the communicators of worker streams"
          + " launch at most this many thread blocks (CTAs). 0 (the default) partitions nothing;"
          + " the unpipelined run always uses every SM.")
  private Integer communicationSMs;

  @Default("" + CommJobDefaults.PROGRAM_SERIALIZE_MATMULS)
  @JsonPropertyDescription(
      "Run the pipelined run's matmuls one after another in program order (each on the SMs"
          + " left to matmuls when communicationSMs is set, on every SM otherwise), so that a"
          + " chunk's communication overlaps the next chunk's matmul instead of waiting for the"
          + " matmuls queued beside it. Helps when the communication takes longer than the"
          + " matmuls; costs matmul time otherwise.")
  private Boolean serializeMatmuls;

  public ProgramName getName() {
    return name;
  }

  public void setName(ProgramName name) {
    this.name = name;
  }

  public ProgramSpec withName(ProgramName name) {
    this.name = name;
    return this;
  }

  public Shape getShape() {
    return shape;
  }

  public void setShape(Shape shape) {
    this.shape = shape;
  }

  public ProgramSpec withShape(Shape shape) {
    this.shape = shape;
    return this;
  }

  public Integer getChunks() {
    return chunks;
  }

  public void setChunks(Integer chunks) {
    this.chunks = chunks;
  }

  public ProgramSpec withChunks(Integer chunks) {
    this.chunks = chunks;
    return this;
  }

  public List<PassName> getPasses() {
    return passes;
  }

  public void setPasses(List<PassName> passes) {
    this.passes = passes;
  }

  public ProgramSpec withPasses(List<PassName> passes) {
    this.passes = passes;
    return this;
  }

  public Integer getStreams() {
    return streams;
  }

  public void setStreams(Integer streams) {
    this.streams = streams;
  }

  public ProgramSpec withStreams(Integer streams) {
    this.streams = streams;
    return this;
  }

  public DType getDtype() {
    return dtype;
  }

  public void setDtype(DType dtype) {
    this.dtype = dtype;
  }

  public ProgramSpec withDtype(DType dtype) {
    this.dtype = dtype;
    return this;
  }

  public CommBackend getBackend() {
    return backend;
  }

  public void setBackend(CommBackend backend) {
    this.backend = backend;
  }

  public ProgramSpec withBackend(CommBackend backend) {
    this.backend = backend;
    return this;
  }

  public Integer getWarmupIterations() {
    return warmupIterations;
  }

  public void setWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
  }

  public ProgramSpec withWarmupIterations(Integer warmupIterations) {
    this.warmupIterations = warmupIterations;
    return this;
  }

  public Integer getIterations() {
    return iterations;
  }

  public void setIterations(Integer iterations) {
    this.iterations = iterations;
  }

  public ProgramSpec withIterations(Integer iterations) {
    this.iterations = iterations;
    return this;
  }

  public Integer getCommunicationSMs() {
    return communicationSMs;
  }

  public void setCommunicationSMs(Integer communicationSMs) {
    this.communicationSMs = communicationSMs;
  }

  public ProgramSpec withCommunicationSMs(Integer communicationSMs) {
    this.communicationSMs = communicationSMs;
    return this;
  }

  public Boolean getSerializeMatmuls() {
    return serializeMatmuls;
  }

  public void setSerializeMatmuls(Boolean serializeMatmuls) {
    this.serializeMatmuls = serializeMatmuls;
  }

  public ProgramSpec withSerializeMatmuls(Boolean serializeMatmuls) {
    this.serializeMatmuls = serializeMatmuls;
    return this;
  }
}
