package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.validation.ProgramShapeRules;
import dev.gpucomm.api.v1alpha1.validation.SpecProblem;
import dev.gpucomm.runtime.hostir.interp.SmPartition;
import java.util.List;
import java.util.Objects;

/**
 * A program spec with every default filled in and every constraint checked: what {@link
 * HostProgram#of} builds from.
 *
 * <p>Defaults: the sizes of the nvFuser benchmarks on GPUs (rowParallelLinear h = t = 8192;
 * columnParallelLinear M = 32768, K = 16384, N = 8192; collectivePermute 8192 × 8192), rounded down
 * to a multiple of what the program divides them by; sizes of a few kilobytes on the CPU, so that
 * tests take seconds. Passes default to the program's pipelined form: assignStreams for
 * rowParallelLinear, p2pRingPipeline then assignStreams for columnParallelLinear,
 * collectivePermuteAllgather then assignStreams for collectivePermute. communicationSMs defaults to
 * 0: the pipelined run shares every SM between matmuls and communication.
 */
public record ProgramSettings(
    ProgramName name,
    long m,
    long n,
    long k,
    int chunks,
    int streams,
    List<PassName> passes,
    DType dtype,
    CommBackend backend,
    int warmupIterations,
    int iterations,
    int communicationSMs,
    boolean serializeMatmuls) {

  private static final String FIELD = "spec.workload.program.";

  /** Most SMs a job may keep for communication: the most blocks a peer-memory kernel launches. */
  public static final int MAX_COMMUNICATION_SMS = 160;

  public ProgramSettings {
    passes = List.copyOf(passes);
  }

  /** Resolves {@code spec} for a world of {@code worldSize} ranks on {@code device}. */
  public static ProgramSettings resolve(ProgramSpec spec, DeviceKind device, int worldSize) {
    if (spec == null) {
      throw new ProgramSpecException(
          "spec.workload.program is required when workload.kind is program");
    }
    ProgramName name = spec.getName();
    if (name == null) {
      throw new ProgramSpecException(FIELD + "name is required: one of " + ProgramName.wireNames());
    }
    boolean gpu = device != DeviceKind.CPU;
    int chunks = positive(spec.getChunks(), CommJobDefaults.PROGRAM_CHUNKS, "chunks");
    int streams = positive(spec.getStreams(), CommJobDefaults.PROGRAM_STREAMS, "streams");
    Shape shape = spec.getShape() == null ? new Shape() : spec.getShape();
    long m;
    long n;
    long k;
    switch (name) {
      case ROW_PARALLEL_LINEAR -> {
        m = size(shape.getM(), gpu ? roundDown(8192, chunks) : 16L * chunks, "shape.m");
        n = size(shape.getN(), gpu ? 8192 : 32, "shape.n");
        k = size(shape.getK(), gpu ? roundDown(8192, worldSize) : 16L * worldSize, "shape.k");
      }
      case COLUMN_PARALLEL_LINEAR -> {
        m = size(shape.getM(), gpu ? roundDown(32768, worldSize) : 8L * worldSize, "shape.m");
        n = size(shape.getN(), gpu ? 8192 : 16, "shape.n");
        k = size(shape.getK(), gpu ? 16384 : 32, "shape.k");
      }
      case COLLECTIVE_PERMUTE -> {
        m = size(shape.getM(), gpu ? roundDown(8192, worldSize) : 4L * worldSize, "shape.m");
        n = 1;
        k = size(shape.getK(), gpu ? 8192 : 8, "shape.k");
      }
      default -> throw new ProgramSpecException(FIELD + "name: unknown program " + name);
    }
    List<SpecProblem> indivisible = ProgramShapeRules.problems(name, m, k, chunks, worldSize);
    if (!indivisible.isEmpty()) {
      throw new ProgramSpecException(indivisible.getFirst().toString());
    }
    List<PassName> passes = spec.getPasses() == null ? defaultPasses(name) : spec.getPasses();
    if (passes.stream().anyMatch(Objects::isNull)) {
      throw new ProgramSpecException(
          FIELD + "passes: unknown pass; known passes are " + PassName.wireNames());
    }
    DType dtype = spec.getDtype() == null ? CommJobDefaults.DTYPE : spec.getDtype();
    CommBackend backend =
        spec.getBackend() == null ? CommJobDefaults.PROGRAM_BACKEND : spec.getBackend();
    int warmup =
        spec.getWarmupIterations() == null
            ? CommJobDefaults.PROGRAM_WARMUP
            : spec.getWarmupIterations();
    if (warmup < 0) {
      throw new ProgramSpecException(FIELD + "warmupIterations must be >= 0, got " + warmup);
    }
    int iterations =
        positive(spec.getIterations(), CommJobDefaults.PROGRAM_ITERATIONS, "iterations");
    int communicationSMs = spec.getCommunicationSMs() == null ? 0 : spec.getCommunicationSMs();
    if (communicationSMs < 0 || communicationSMs > MAX_COMMUNICATION_SMS) {
      throw new ProgramSpecException(
          FIELD
              + "communicationSMs must be between 0 and "
              + MAX_COMMUNICATION_SMS
              + ", got "
              + communicationSMs);
    }
    return new ProgramSettings(
        name,
        m,
        n,
        k,
        chunks,
        streams,
        passes,
        dtype,
        backend,
        warmup,
        iterations,
        communicationSMs,
        Boolean.TRUE.equals(spec.getSerializeMatmuls()));
  }

  /**
   * The split of a GPU with {@code multiprocessors} that the pipelined run uses: none when
   * communicationSMs is 0 or the device has no multiprocessors (the CPU), in which case
   * serializeMatmuls still orders the matmuls.
   *
   * @throws ProgramSpecException when communicationSMs leaves the matmuls no multiprocessor
   */
  public SmPartition smPartition(int multiprocessors) {
    if (communicationSMs == 0 || multiprocessors == 0) {
      return serializeMatmuls ? SmPartition.IN_ORDER : SmPartition.NONE;
    }
    if (communicationSMs >= multiprocessors) {
      throw new ProgramSpecException(
          FIELD
              + "communicationSMs ("
              + communicationSMs
              + ") must leave the matmuls at least 1 of the GPU's "
              + multiprocessors
              + " multiprocessors");
    }
    return SmPartition.keeping(communicationSMs, multiprocessors, serializeMatmuls);
  }

  /** The passes that turn {@code name} into its pipelined form. */
  public static List<PassName> defaultPasses(ProgramName name) {
    return switch (name) {
      case ROW_PARALLEL_LINEAR -> List.of(PassName.ASSIGN_STREAMS);
      case COLUMN_PARALLEL_LINEAR -> List.of(PassName.P2P_RING_PIPELINE, PassName.ASSIGN_STREAMS);
      case COLLECTIVE_PERMUTE ->
          List.of(PassName.COLLECTIVE_PERMUTE_ALLGATHER, PassName.ASSIGN_STREAMS);
    };
  }

  private static long roundDown(long value, long multiple) {
    return Math.max(multiple, value / multiple * multiple);
  }

  private static int positive(Integer value, int fallback, String field) {
    if (value == null) {
      return fallback;
    }
    if (value < 1) {
      throw new ProgramSpecException(FIELD + field + " must be at least 1, got " + value);
    }
    return value;
  }

  private static long size(Long value, long fallback, String field) {
    if (value == null) {
      return fallback;
    }
    if (value < 1) {
      throw new ProgramSpecException(FIELD + field + " must be at least 1, got " + value);
    }
    return value;
  }
}
