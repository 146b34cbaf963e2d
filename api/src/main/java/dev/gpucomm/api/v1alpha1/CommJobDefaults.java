package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The CRD's defaults, applied in code for jobs that never went through an API server (local runs,
 * {@code gpucomm bench}) and read by the validator and the operator for fields left out. The one
 * place that knows them: the API types' {@code @Default} annotations name these constants, and the
 * "when omitted" rules of their descriptions are applied here.
 *
 * <p>Algorithms left out of a benchmark are not defaulted here: they depend on the device (the
 * runtime uses auto plus every algorithm the communicator offers).
 */
public final class CommJobDefaults {
  // Wire names are constants so that the API types' @Default annotations can use them.
  public static final String DEVICE_NAME = "cuda";
  public static final String HEURISTIC_NAME = "trtllm";
  public static final String COLLECTIVE_NAME = "allreduce";
  public static final String DTYPE_NAME = "bf16";
  public static final String PATTERN_NAME = "allreduce";
  public static final String PROGRAM_BACKEND_NAME = "nccl";
  public static final String CLEAN_POD_POLICY_NAME = "Running";

  public static final int RANKS_PER_POD = 1;

  /** The most ranks one pod may hold: the GPUs of the largest nodes. */
  public static final int MAX_RANKS_PER_POD = 16;

  public static final DeviceKind DEVICE = DeviceKind.fromWireName(DEVICE_NAME).orElseThrow();
  public static final int TIMEOUT_SECONDS = 900;
  public static final boolean SUSPEND = false;
  public static final CleanPodPolicy CLEAN_POD_POLICY =
      CleanPodPolicy.fromWireName(CLEAN_POD_POLICY_NAME).orElseThrow();

  /** Restarts after a failure: none unless spec.failurePolicy asks for them. */
  public static final int MAX_RESTARTS = 0;

  /** The failures a failurePolicy restarts when it names none: pods lost to disruptions. */
  public static final List<RestartCause> RESTART_ON = List.of(RestartCause.DISRUPTION);

  public static final HeuristicName HEURISTIC =
      HeuristicName.fromWireName(HEURISTIC_NAME).orElseThrow();

  /**
   * A double, so Baseline's {@code @Default("5")} spells it out rather than using this constant.
   */
  public static final double MAX_SLOWDOWN_PERCENT = 5;

  public static final Collective COLLECTIVE =
      Collective.fromWireName(COLLECTIVE_NAME).orElseThrow();
  public static final DType DTYPE = DType.fromWireName(DTYPE_NAME).orElseThrow();
  public static final int HIDDEN_SIZE = 8192;
  public static final int BENCHMARK_WARMUP = 20;
  public static final int BENCHMARK_ITERATIONS = 200;
  public static final boolean CUDA_GRAPH = true;

  public static final long FABRIC_BYTES = 4L << 20;
  public static final int FABRIC_ITERATIONS = 5;

  /** A pair below this fraction of its matrix's median is slow. */
  public static final double FABRIC_SLOW_FRACTION = 0.5;

  /** A rank slower than the median of its peers by more than this is flagged as an outlier. */
  public static final double OUTLIER_THRESHOLD_PERCENT = 20;

  /** Benchmarks time a separate output buffer unless asked to run in place. */
  public static final boolean IN_PLACE = false;

  public static final AllReducePattern PATTERN =
      AllReducePattern.fromWireName(PATTERN_NAME).orElseThrow();
  public static final boolean FP32_ACCUMULATE = true;

  public static final int TUNE_WARMUP = 10;
  public static final int TUNE_ITERATIONS = 100;

  /** Token counts a tune sweep covers when it names neither tokens nor sizes: 32 to 4096. */
  public static final List<Integer> TUNE_TOKENS = List.of(32, 64, 128, 256, 512, 1024, 2048, 4096);

  public static final int PROGRAM_CHUNKS = 2;
  public static final int PROGRAM_STREAMS = 3;
  public static final CommBackend PROGRAM_BACKEND =
      CommBackend.fromWireName(PROGRAM_BACKEND_NAME).orElseThrow();
  public static final int PROGRAM_WARMUP = 3;
  public static final int PROGRAM_ITERATIONS = 20;
  public static final int PROGRAM_COMMUNICATION_SMS = 0;
  public static final boolean PROGRAM_SERIALIZE_MATMULS = false;

  /**
   * CPU a rank pod requests per rank: the rank's own thread plus NCCL's proxy thread, which must
   * not wait for a core behind another pod's work.
   */
  public static final String CPU_PER_RANK = "2";

  /**
   * Memory a rank pod requests per rank: a rank's JVM, CUDA context and pinned staging buffers. The
   * memory-backed /dev/shm comes on top, in the limit only.
   */
  public static final String MEMORY_PER_RANK = "4Gi";

  private CommJobDefaults() {}

  /** The CPU a rank pod requests: {@code ranksPerPod} x {@code cpuPerRank}. */
  public static Quantity rankPodCpuRequest(int ranksPerPod, String cpuPerRank) {
    BigDecimal cores = Quantity.getAmountInBytes(new Quantity(cpuPerRank));
    BigDecimal total = cores.multiply(BigDecimal.valueOf(ranksPerPod));
    return total.stripTrailingZeros().scale() <= 0
        ? new Quantity(total.toBigInteger().toString())
        : new Quantity(total.movePointRight(3).toBigInteger() + "m");
  }

  /** The memory a rank pod requests: {@code ranksPerPod} x {@code memoryPerRank}. */
  public static Quantity rankPodMemoryRequest(int ranksPerPod, String memoryPerRank) {
    return memory(
        Quantity.getAmountInBytes(new Quantity(memoryPerRank))
            .multiply(BigDecimal.valueOf(ranksPerPod)));
  }

  /**
   * The memory limit of a rank pod: its request plus {@code sharedMemorySize}, since the pages of a
   * memory-backed /dev/shm are charged to the container that writes them; a limit without them
   * would get a pod OOM-killed as soon as NCCL fills its shared buffers.
   */
  public static Quantity rankPodMemoryLimit(Quantity memoryRequest, String sharedMemorySize) {
    return memory(
        Quantity.getAmountInBytes(memoryRequest)
            .add(Quantity.getAmountInBytes(new Quantity(sharedMemorySize))));
  }

  /** Bytes written in the largest binary unit that divides them, as kubectl would show them. */
  private static Quantity memory(BigDecimal bytes) {
    BigInteger whole = bytes.setScale(0, RoundingMode.CEILING).toBigInteger();
    String[] units = {"Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < units.length; i++) {
      BigInteger unit = BigInteger.ONE.shiftLeft(10 * (units.length - i));
      if (whole.signum() > 0 && whole.mod(unit).signum() == 0) {
        return new Quantity(whole.divide(unit) + units[i]);
      }
    }
    return new Quantity(whole.toString());
  }

  /** Fills every unset field that has a default; leaves set fields and absent sections alone. */
  public static CommJob apply(CommJob job) {
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      return job;
    }
    orElse(spec::getRanksPerPod, spec::setRanksPerPod, RANKS_PER_POD);
    orElse(spec::getDevice, spec::setDevice, DEVICE);
    orElse(spec::getTimeoutSeconds, spec::setTimeoutSeconds, TIMEOUT_SECONDS);
    orElse(spec::getSharedMemorySize, spec::setSharedMemorySize, CommJobSpec.DEFAULT_SHARED_MEMORY);
    orElse(spec::getSuspend, spec::setSuspend, SUSPEND);
    orElse(spec::getCleanPodPolicy, spec::setCleanPodPolicy, CLEAN_POD_POLICY);
    FailurePolicy failurePolicy = spec.getFailurePolicy();
    if (failurePolicy != null) {
      orElse(failurePolicy::getMaxRestarts, failurePolicy::setMaxRestarts, MAX_RESTARTS);
      orElse(failurePolicy::getRestartOn, failurePolicy::setRestartOn, RESTART_ON);
    }
    if (spec.getHeuristic() == null) {
      spec.setHeuristic(new Heuristic());
    }
    Heuristic heuristic = spec.getHeuristic();
    orElse(heuristic::getName, heuristic::setName, HEURISTIC);
    Baseline baseline = spec.getBaseline();
    if (baseline != null) {
      orElse(
          baseline::getMaxSlowdownPercent, baseline::setMaxSlowdownPercent, MAX_SLOWDOWN_PERCENT);
    }
    Workload workload = spec.getWorkload();
    if (workload != null) {
      if (workload.getBenchmark() != null) {
        applyBenchmark(workload.getBenchmark());
      }
      if (workload.getTune() != null) {
        applyTune(workload.getTune());
      }
      if (workload.getProgram() != null) {
        applyProgram(workload.getProgram());
      }
      if (workload.getFabric() != null) {
        applyFabric(workload.getFabric());
      }
    }
    return job;
  }

  private static void applyBenchmark(BenchmarkSpec benchmark) {
    orElse(benchmark::getCollective, benchmark::setCollective, COLLECTIVE);
    orElse(benchmark::getDtype, benchmark::setDtype, DTYPE);
    orElse(benchmark::getHiddenSize, benchmark::setHiddenSize, HIDDEN_SIZE);
    orElse(benchmark::getWarmupIterations, benchmark::setWarmupIterations, BENCHMARK_WARMUP);
    orElse(benchmark::getIterations, benchmark::setIterations, BENCHMARK_ITERATIONS);
    orElse(benchmark::getCudaGraph, benchmark::setCudaGraph, CUDA_GRAPH);
    orElse(benchmark::getInPlace, benchmark::setInPlace, IN_PLACE);
    orElse(benchmark::getPattern, benchmark::setPattern, PATTERN);
    orElse(benchmark::getFp32Accumulate, benchmark::setFp32Accumulate, FP32_ACCUMULATE);
    orElse(
        benchmark::getOutlierThresholdPercent,
        benchmark::setOutlierThresholdPercent,
        OUTLIER_THRESHOLD_PERCENT);
  }

  private static void applyFabric(FabricSpec fabric) {
    orElse(fabric::getBytes, fabric::setBytes, FABRIC_BYTES);
    orElse(fabric::getIterations, fabric::setIterations, FABRIC_ITERATIONS);
    orElse(fabric::getSlowFraction, fabric::setSlowFraction, FABRIC_SLOW_FRACTION);
  }

  private static void applyTune(TuneSpec tune) {
    orElse(tune::getCollective, tune::setCollective, COLLECTIVE);
    orElse(tune::getDtype, tune::setDtype, DTYPE);
    orElse(tune::getHiddenSize, tune::setHiddenSize, HIDDEN_SIZE);
    orElse(tune::getWarmupIterations, tune::setWarmupIterations, TUNE_WARMUP);
    orElse(tune::getIterations, tune::setIterations, TUNE_ITERATIONS);
    if (tune.getTokens() == null && tune.getSizes() == null) {
      tune.setTokens(new ArrayList<>(TUNE_TOKENS));
    }
  }

  private static void applyProgram(ProgramSpec program) {
    orElse(program::getChunks, program::setChunks, PROGRAM_CHUNKS);
    orElse(program::getStreams, program::setStreams, PROGRAM_STREAMS);
    orElse(program::getDtype, program::setDtype, DTYPE);
    orElse(program::getBackend, program::setBackend, PROGRAM_BACKEND);
    orElse(program::getWarmupIterations, program::setWarmupIterations, PROGRAM_WARMUP);
    orElse(program::getIterations, program::setIterations, PROGRAM_ITERATIONS);
    orElse(program::getCommunicationSMs, program::setCommunicationSMs, PROGRAM_COMMUNICATION_SMS);
    orElse(program::getSerializeMatmuls, program::setSerializeMatmuls, PROGRAM_SERIALIZE_MATMULS);
  }

  private static <T> void orElse(Supplier<T> getter, Consumer<T> setter, T fallback) {
    if (getter.get() == null) {
      setter.accept(fallback);
    }
  }
}
