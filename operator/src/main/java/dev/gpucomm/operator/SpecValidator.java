package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import io.fabric8.kubernetes.api.model.Quantity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Checks what the CRD's schema and CEL rules cannot (or what a cluster without them lets through),
 * each problem as one line naming the field; a job with problems gets reason {@code InvalidSpec}
 * and no pods.
 */
@ApplicationScoped
public class SpecValidator {
  /** Largest buffer one rank may be asked to move: the runtimes index bytes with 32-bit ints. */
  static final long MAX_BYTES_PER_RANK = Integer.MAX_VALUE;

  static final long MIN_SHARED_MEMORY_BYTES = 64L << 20;
  static final int MAX_DNS_LABEL = 63;

  private static final Pattern DNS_LABEL_START = Pattern.compile("^[a-z].*");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Set<Algorithm> IPC_ALGORITHMS = Set.of(Algorithm.ONESHOT, Algorithm.TWOSHOT);

  private final TemplateOverlayValidator templateValidator;
  private final OperatorConfig config;

  @Inject
  public SpecValidator(TemplateOverlayValidator templateValidator, OperatorConfig config) {
    this.templateValidator = templateValidator;
    this.config = config;
  }

  /** All problems of the job's spec, in the order of its fields; empty when it may run. */
  public List<String> problems(CommJob job) {
    List<String> problems = new ArrayList<>();
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      problems.add("spec is required");
      return problems;
    }
    int ranksPerPod =
        Objects.requireNonNullElse(spec.getRanksPerPod(), JobLayout.DEFAULT_RANKS_PER_POD);
    checkName(job.getMetadata().getName(), spec, ranksPerPod, problems);
    checkWorld(spec, ranksPerPod, problems);
    inRange(problems, "spec.timeoutSeconds", spec.getTimeoutSeconds(), 1, 86400);
    DeviceKind device = Objects.requireNonNullElse(spec.getDevice(), DeviceKind.CUDA);
    checkWorkload(spec, podSpan(spec, ranksPerPod), device, problems);
    checkHeuristic(spec.getHeuristic(), problems);
    checkBaseline(spec, problems);
    long sharedMemoryBytes = checkSharedMemory(spec, problems);
    problems.addAll(templateValidator.problems(spec.getTemplate(), ranksPerPod, sharedMemoryBytes));
    return problems;
  }

  private static void checkName(
      String name, CommJobSpec spec, int ranksPerPod, List<String> problems) {
    if (!DNS_LABEL_START.matcher(name).matches()) {
      problems.add(
          "metadata.name \"%s\" must start with a lowercase letter: it also names the job's headless Service"
              .formatted(name));
    }
    if (spec.getWorldSize() != null && spec.getWorldSize() > 0 && ranksPerPod > 0) {
      int lastPodIndex = Math.max(0, spec.getWorldSize() / ranksPerPod - 1);
      String lastHostname = name + "-" + lastPodIndex;
      if (lastHostname.length() > MAX_DNS_LABEL) {
        problems.add(
            "metadata.name is too long: pod hostname \"%s\" would exceed %d characters"
                .formatted(lastHostname, MAX_DNS_LABEL));
      }
    }
  }

  private static void checkWorld(CommJobSpec spec, int ranksPerPod, List<String> problems) {
    if (spec.getWorldSize() == null) {
      problems.add("spec.worldSize is required");
    } else {
      inRange(problems, "spec.worldSize", spec.getWorldSize(), 1, 4096);
    }
    boolean ranksPerPodInRange =
        inRange(problems, "spec.ranksPerPod", spec.getRanksPerPod(), 1, 16);
    if (spec.getWorldSize() != null
        && spec.getWorldSize() > 0
        && ranksPerPodInRange
        && spec.getWorldSize() % ranksPerPod != 0) {
      problems.add(
          "spec.worldSize (%d) must be a multiple of spec.ranksPerPod (%d)"
              .formatted(spec.getWorldSize(), ranksPerPod));
    }
  }

  /**
   * "spec.worldSize (16) spans 2 pods of spec.ranksPerPod (8)" when the ranks do not all share one
   * pod (and so cannot all exchange buffers over IPC), null when they do.
   */
  private static String podSpan(CommJobSpec spec, int ranksPerPod) {
    Integer worldSize = spec.getWorldSize();
    if (worldSize == null || ranksPerPod <= 0 || worldSize <= ranksPerPod) {
      return null;
    }
    return "spec.worldSize (%d) spans %d pods of spec.ranksPerPod (%d)"
        .formatted(worldSize, (worldSize + ranksPerPod - 1) / ranksPerPod, ranksPerPod);
  }

  private static void checkWorkload(
      CommJobSpec spec, String podSpan, DeviceKind device, List<String> problems) {
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
    inRange(problems, field + ".hiddenSize", benchmark.getHiddenSize(), 1, 1048576);
    inRange(problems, field + ".warmupIterations", benchmark.getWarmupIterations(), 0, 100000);
    inRange(problems, field + ".iterations", benchmark.getIterations(), 1, 1000000);
    DType dtype = Objects.requireNonNullElse(benchmark.getDtype(), DType.BF16);
    int hiddenSize = Objects.requireNonNullElse(benchmark.getHiddenSize(), 8192);
    checkSweep(field, benchmark.getTokens(), benchmark.getSizes(), hiddenSize, dtype, problems);
    checkAlgorithms(field, benchmark.getAlgorithms(), podSpan, device, problems);
  }

  private static void checkTune(
      TuneSpec tune, String podSpan, DeviceKind device, List<String> problems) {
    String field = "spec.workload.tune";
    if (tune.getTokens() != null && tune.getSizes() != null) {
      problems.add(field + " takes tokens or sizes, not both");
    }
    inRange(problems, field + ".hiddenSize", tune.getHiddenSize(), 1, 1048576);
    inRange(problems, field + ".warmupIterations", tune.getWarmupIterations(), 0, 100000);
    inRange(problems, field + ".iterations", tune.getIterations(), 1, 1000000);
    DType dtype = Objects.requireNonNullElse(tune.getDtype(), DType.BF16);
    int hiddenSize = Objects.requireNonNullElse(tune.getHiddenSize(), 8192);
    checkSweep(field, tune.getTokens(), tune.getSizes(), hiddenSize, dtype, problems);
    checkAlgorithms(field, tune.getAlgorithms(), podSpan, device, problems);
    if (tune.getTableName() != null) {
      checkObjectName(field + ".tableName", tune.getTableName(), problems);
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
      checkDistinct(field + ".tokens", tokens, String::valueOf, problems);
      for (int i = 0; i < tokens.size(); i++) {
        Integer count = tokens.get(i);
        String entry = field + ".tokens[" + i + "]";
        if (count == null || count <= 0) {
          problems.add(entry + " (" + count + ") must be positive");
        } else if (hiddenSize > 0) {
          long bytes = (long) count * hiddenSize * dtype.bytes();
          if (bytes > MAX_BYTES_PER_RANK) {
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
      checkDistinct(field + ".sizes", sizes, String::valueOf, problems);
      for (int i = 0; i < sizes.size(); i++) {
        Long bytes = sizes.get(i);
        String entry = field + ".sizes[" + i + "]";
        if (bytes == null || bytes <= 0 || bytes % 16 != 0) {
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
    checkDistinct(field + ".algorithms", algorithms, Algorithm::wireName, problems);
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
      positive(problems, field + ".shape.m", shape.getM());
      positive(problems, field + ".shape.n", shape.getN());
      positive(problems, field + ".shape.k", shape.getK());
    }
    inRange(problems, field + ".chunks", program.getChunks(), 1, 64);
    inRange(problems, field + ".streams", program.getStreams(), 1, 32);
    inRange(problems, field + ".warmupIterations", program.getWarmupIterations(), 0, 10000);
    inRange(problems, field + ".iterations", program.getIterations(), 1, 100000);
    if (program.getPasses() != null) {
      checkDistinct(field + ".passes", program.getPasses(), p -> p.wireName(), problems);
    }
    if (podSpan != null && program.getBackend() == CommBackend.IPC) {
      problems.add(
          "%s.backend ipc exchanges buffers among the ranks of one pod, but %s; use nccl"
              .formatted(field, podSpan));
    }
  }

  private static void checkHeuristic(Heuristic heuristic, List<String> problems) {
    if (heuristic == null) {
      return;
    }
    HeuristicName name = Objects.requireNonNullElse(heuristic.getName(), HeuristicName.TRTLLM);
    if (name == HeuristicName.FIXED) {
      if (heuristic.getFixedAlgorithm() == null) {
        problems.add("spec.heuristic.fixedAlgorithm is required when spec.heuristic.name is fixed");
      } else if (heuristic.getFixedAlgorithm() == Algorithm.AUTO) {
        problems.add(
            "spec.heuristic.fixedAlgorithm cannot be auto: auto is what asks the heuristic");
      }
    } else if (heuristic.getFixedAlgorithm() != null) {
      problems.add(
          "spec.heuristic.fixedAlgorithm is set but spec.heuristic.name is %s (only fixed uses it)"
              .formatted(name.wireName()));
    }
    if (name == HeuristicName.MEASURED && heuristic.getTuningRef() == null) {
      problems.add("spec.heuristic.tuningRef is required when spec.heuristic.name is measured");
    } else if (heuristic.getTuningRef() != null) {
      checkObjectName("spec.heuristic.tuningRef", heuristic.getTuningRef(), problems);
    }
  }

  private static void checkBaseline(CommJobSpec spec, List<String> problems) {
    Baseline baseline = spec.getBaseline();
    if (baseline == null) {
      return;
    }
    if (baseline.getConfigMapRef() == null) {
      problems.add("spec.baseline.configMapRef is required");
    } else {
      checkObjectName("spec.baseline.configMapRef", baseline.getConfigMapRef(), problems);
    }
    Double slowdown = baseline.getMaxSlowdownPercent();
    if (slowdown != null && !(slowdown >= 0 && slowdown <= 1000)) {
      problems.add("spec.baseline.maxSlowdownPercent must be between 0 and 1000, not " + slowdown);
    }
    if (spec.getWorkload() != null
        && spec.getWorkload().getKind() != null
        && spec.getWorkload().getKind() != WorkloadKind.BENCHMARK) {
      problems.add(
          "spec.baseline compares benchmark reports, but spec.workload.kind is "
              + spec.getWorkload().getKind().wireName());
    }
  }

  /** Returns the size in bytes, or -1 when it is not a usable quantity. */
  private long checkSharedMemory(CommJobSpec spec, List<String> problems) {
    String text =
        Objects.requireNonNullElse(spec.getSharedMemorySize(), config.defaultSharedMemorySize());
    BigDecimal bytes;
    try {
      bytes = Quantity.getAmountInBytes(new Quantity(text));
    } catch (IllegalArgumentException | ArithmeticException e) {
      problems.add(
          "spec.sharedMemorySize \"%s\" is not a quantity (e.g. 8Gi, 512Mi)".formatted(text));
      return -1;
    }
    if (bytes.compareTo(BigDecimal.valueOf(MIN_SHARED_MEMORY_BYTES)) < 0) {
      problems.add(
          "spec.sharedMemorySize (%s) must be at least 64Mi, the container default NCCL already outgrows"
              .formatted(text));
      return -1;
    }
    return bytes.longValue();
  }

  private static void checkObjectName(String field, String name, List<String> problems) {
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      problems.add(
          "%s \"%s\" is not a valid object name (lowercase letters, digits, '-' and '.')"
              .formatted(field, name));
    }
  }

  private static <T> void checkDistinct(
      String field, List<T> values, Function<? super T, ?> show, List<String> problems) {
    Set<T> seen = new HashSet<>();
    for (T value : values) {
      if (value != null && !seen.add(value)) {
        problems.add(field + " lists " + show.apply(value) + " twice");
        return;
      }
    }
  }

  private static boolean inRange(
      List<String> problems, String field, Integer value, int min, int max) {
    if (value != null && (value < min || value > max)) {
      problems.add("%s must be between %d and %d, not %d".formatted(field, min, max, value));
      return false;
    }
    return true;
  }

  private static void positive(List<String> problems, String field, Long value) {
    if (value != null && value <= 0) {
      problems.add(field + " must be positive, not " + value);
    }
  }
}
