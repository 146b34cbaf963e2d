package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Checks of {@code spec.workload}: the section that matches the kind, sweeps a rank's buffer can
 * hold, and algorithms that can run where the ranks are (IPC only within a pod, ring only on cpu).
 */
final class WorkloadValidator {
  /** Largest buffer one rank may be asked to move: the runtimes index bytes with 32-bit ints. */
  static final long MAX_BYTES_PER_RANK = Integer.MAX_VALUE;

  private static final Set<Algorithm> IPC_ALGORITHMS = Set.of(Algorithm.ONESHOT, Algorithm.TWOSHOT);

  private WorkloadValidator() {}

  /** {@code podSpan}: why the ranks do not share one pod, or null when they do. */
  static void check(CommJobSpec spec, String podSpan, DeviceKind device, List<String> problems) {
    Workload workload = spec.getWorkload();
    if (workload == null) {
      problems.add("spec.workload is required");
      return;
    }
    WorkloadKind kind = workload.getKind();
    if (kind == null) {
      problems.add("spec.workload.kind is required (" + WorkloadKind.wireNames() + ")");
      return;
    }
    checkSection(kind, WorkloadKind.BENCHMARK, workload.getBenchmark(), problems);
    checkSection(kind, WorkloadKind.PROGRAM, workload.getProgram(), problems);
    checkSection(kind, WorkloadKind.TUNE, workload.getTune(), problems);
    switch (kind) {
      case BENCHMARK -> {
        if (workload.getBenchmark() != null) {
          checkBenchmark(workload.getBenchmark(), podSpan, device, problems);
        }
      }
      case PROGRAM -> {
        if (workload.getProgram() != null) {
          checkProgram(workload.getProgram(), podSpan, problems);
        }
      }
      case TUNE -> {
        if (workload.getTune() != null) {
          checkTune(workload.getTune(), podSpan, device, problems);
        }
      }
    }
  }

  private static void checkSection(
      WorkloadKind kind, WorkloadKind section, Object value, List<String> problems) {
    String field = "spec.workload." + section.wireName();
    if (kind == section && value == null) {
      problems.add(field + " is required when spec.workload.kind is " + kind.wireName());
    } else if (kind != section && value != null) {
      problems.add(field + " is set but spec.workload.kind is " + kind.wireName());
    }
  }

  private static void checkBenchmark(
      BenchmarkSpec benchmark, String podSpan, DeviceKind device, List<String> problems) {
    String field = "spec.workload.benchmark";
    if ((benchmark.getTokens() == null) == (benchmark.getSizes() == null)) {
      problems.add(field + " needs exactly one of tokens and sizes");
    }
    FieldChecks.inRange(problems, field + ".hiddenSize", benchmark.getHiddenSize(), 1, 1048576);
    FieldChecks.inRange(
        problems, field + ".warmupIterations", benchmark.getWarmupIterations(), 0, 100000);
    FieldChecks.inRange(problems, field + ".iterations", benchmark.getIterations(), 1, 1000000);
    DType dtype = Objects.requireNonNullElse(benchmark.getDtype(), DType.BF16);
    int hiddenSize = Objects.requireNonNullElse(benchmark.getHiddenSize(), 8192);
    checkSweep(field, benchmark.getTokens(), benchmark.getSizes(), hiddenSize, dtype, problems);
    checkAlgorithms(field, benchmark.getAlgorithms(), podSpan, device, problems);
    checkInPlace(field, benchmark, problems);
  }

  /** In place is all-reduce with the output over the input, by the algorithms that allow it. */
  private static void checkInPlace(String field, BenchmarkSpec benchmark, List<String> problems) {
    if (!Boolean.TRUE.equals(benchmark.getInPlace())) {
      return;
    }
    Collective collective =
        Objects.requireNonNullElse(benchmark.getCollective(), Collective.ALLREDUCE);
    if (collective != Collective.ALLREDUCE) {
      problems.add(
          "%s.inPlace applies to allreduce only, not %s".formatted(field, collective.wireName()));
    }
    if (benchmark.getAlgorithms() != null) {
      for (Algorithm algorithm : benchmark.getAlgorithms()) {
        if (!algorithm.mayRunInPlace()) {
          problems.add(
              "%s.algorithms: %s does not run in place (a rank's peers read its input while it"
                      .formatted(field, algorithm.wireName())
                  + " would overwrite it); with inPlace use nccl or auto");
        }
      }
    }
  }

  private static void checkTune(
      TuneSpec tune, String podSpan, DeviceKind device, List<String> problems) {
    String field = "spec.workload.tune";
    if (tune.getTokens() != null && tune.getSizes() != null) {
      problems.add(field + " takes tokens or sizes, not both");
    }
    FieldChecks.inRange(problems, field + ".hiddenSize", tune.getHiddenSize(), 1, 1048576);
    FieldChecks.inRange(
        problems, field + ".warmupIterations", tune.getWarmupIterations(), 0, 100000);
    FieldChecks.inRange(problems, field + ".iterations", tune.getIterations(), 1, 1000000);
    DType dtype = Objects.requireNonNullElse(tune.getDtype(), DType.BF16);
    int hiddenSize = Objects.requireNonNullElse(tune.getHiddenSize(), 8192);
    checkSweep(field, tune.getTokens(), tune.getSizes(), hiddenSize, dtype, problems);
    checkAlgorithms(field, tune.getAlgorithms(), podSpan, device, problems);
    if (tune.getTableName() != null) {
      FieldChecks.checkObjectName(field + ".tableName", tune.getTableName(), problems);
    }
  }

  private static void checkSweep(
      String field,
      List<Integer> tokens,
      List<Long> sizes,
      int hiddenSize,
      DType dtype,
      List<String> problems) {
    if (tokens != null) {
      FieldChecks.checkDistinct(field + ".tokens", tokens, String::valueOf, problems);
      for (int i = 0; i < tokens.size(); i++) {
        Integer count = tokens.get(i);
        String entry = field + ".tokens[" + i + "]";
        if (count == null || count <= 0) {
          problems.add(entry + " (" + count + ") must be positive");
        } else if (hiddenSize > 0) {
          long bytes = (long) count * hiddenSize * dtype.bytes();
          // the ranks move 16-byte vectors and refuse other sizes: refused here, before any pod
          if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
            problems.add(
                "%s (%d) x hiddenSize (%d) x %d bytes (%s) = %d bytes is not a multiple of 16"
                    .formatted(entry, count, hiddenSize, dtype.bytes(), dtype.wireName(), bytes));
          } else if (bytes > MAX_BYTES_PER_RANK) {
            problems.add(
                "%s (%d) x hiddenSize (%d) x %d bytes (%s) = %d bytes exceeds the %d-byte limit of one rank's buffer"
                    .formatted(
                        entry,
                        count,
                        hiddenSize,
                        dtype.bytes(),
                        dtype.wireName(),
                        bytes,
                        MAX_BYTES_PER_RANK));
          }
        }
      }
    }
    if (sizes != null) {
      FieldChecks.checkDistinct(field + ".sizes", sizes, String::valueOf, problems);
      for (int i = 0; i < sizes.size(); i++) {
        Long bytes = sizes.get(i);
        String entry = field + ".sizes[" + i + "]";
        if (bytes == null || bytes <= 0 || bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
          problems.add(entry + " (" + bytes + ") must be a positive multiple of 16 bytes");
        } else if (bytes > MAX_BYTES_PER_RANK) {
          problems.add(
              "%s (%d) exceeds the %d-byte limit of one rank's buffer"
                  .formatted(entry, bytes, MAX_BYTES_PER_RANK));
        }
      }
    }
  }

  private static void checkAlgorithms(
      String field,
      List<Algorithm> algorithms,
      String podSpan,
      DeviceKind device,
      List<String> problems) {
    if (algorithms == null) {
      return;
    }
    FieldChecks.checkDistinct(field + ".algorithms", algorithms, Algorithm::wireName, problems);
    for (Algorithm algorithm : algorithms) {
      if (podSpan != null && IPC_ALGORITHMS.contains(algorithm)) {
        problems.add(
            "%s.algorithms: %s exchanges buffers among the ranks of one pod, but %s; use nccl or auto"
                .formatted(field, algorithm.wireName(), podSpan));
      }
      if (algorithm == Algorithm.RING && device == DeviceKind.CUDA) {
        problems.add(
            field
                + ".algorithms: ring is the cpu device's stand-in for NCCL; on device cuda use nccl");
      }
    }
  }

  private static void checkProgram(ProgramSpec program, String podSpan, List<String> problems) {
    String field = "spec.workload.program";
    if (program.getName() == null) {
      problems.add(field + ".name is required");
    }
    Shape shape = program.getShape();
    if (shape != null) {
      FieldChecks.positive(problems, field + ".shape.m", shape.getM());
      FieldChecks.positive(problems, field + ".shape.n", shape.getN());
      FieldChecks.positive(problems, field + ".shape.k", shape.getK());
    }
    FieldChecks.inRange(problems, field + ".chunks", program.getChunks(), 1, 64);
    FieldChecks.inRange(problems, field + ".streams", program.getStreams(), 1, 32);
    FieldChecks.inRange(
        problems, field + ".warmupIterations", program.getWarmupIterations(), 0, 10000);
    FieldChecks.inRange(problems, field + ".iterations", program.getIterations(), 1, 100000);
    if (program.getPasses() != null) {
      FieldChecks.checkDistinct(
          field + ".passes", program.getPasses(), p -> p.wireName(), problems);
    }
    if (podSpan != null && program.getBackend() == CommBackend.IPC) {
      problems.add(
          "%s.backend ipc exchanges buffers among the ranks of one pod, but %s; use nccl"
              .formatted(field, podSpan));
    }
  }
}
