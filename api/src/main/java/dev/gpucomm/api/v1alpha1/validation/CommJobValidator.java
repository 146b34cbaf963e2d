package dev.gpucomm.api.v1alpha1.validation;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Expectation;
import dev.gpucomm.api.v1alpha1.ExpectedSize;
import dev.gpucomm.api.v1alpha1.FabricSpec;
import dev.gpucomm.api.v1alpha1.FailurePolicy;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.RestartCause;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rules a CommJob must meet to run, wherever it runs: everything the CRD's schema and CEL rules
 * enforce, plus what only the runtime knows (sizes its kernels can move, algorithms that can run
 * where the ranks are). It returns every problem, in the order of the document's fields, each with
 * its field path. Fields left out count as their {@link CommJobDefaults defaults}, so a job may be
 * checked before or after they are filled in.
 *
 * <p>The operator, the ranks and the CLI all call it; the operator adds only what depends on the
 * cluster (the pod template overlay, names of objects it looks up).
 */
public final class CommJobValidator {
  /** A DNS subdomain, the form of a ConfigMap's name. */
  private static final Pattern CONFIG_MAP_NAME =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  private static final int MAX_CONFIG_MAP_NAME_LENGTH = 253;

  private static final Pattern QUANTITY =
      Pattern.compile("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$");

  /** /dev/shm below this is the container runtime's default, which NCCL already outgrows. */
  public static final long MIN_SHARED_MEMORY_BYTES = 64L << 20;

  /**
   * /dev/shm above this is more than any node's memory that NCCL could use; since its pages count
   * against the pod's memory limit (request + sharedMemorySize), a typo there (8Ti for 8Gi) would
   * lift the limit off the pod altogether.
   */
  public static final long MAX_SHARED_MEMORY_BYTES = 1L << 40;

  /**
   * Largest buffer one rank may be asked to move: nccl-tests' customary sweep end ({@code -e 8G});
   * the peer-memory algorithms run such calls through their buffers in passes.
   */
  public static final long MAX_BYTES_PER_RANK = 8L << 30;

  private final List<SpecProblem> problems = new ArrayList<>();

  private CommJobValidator() {}

  /**
   * Every problem of {@code job}, in the order of its fields; empty when it may run. The rules hold
   * for a cluster and for a local run alike: a local run plays the pods of spec.ranksPerPod ranks
   * each, so algorithms that exchange buffers among the ranks of one pod cannot span pods there
   * either.
   */
  public static List<SpecProblem> validate(CommJob job) {
    CommJobValidator validator = new CommJobValidator();
    validator.check(job);
    return List.copyOf(validator.problems);
  }

  private void check(CommJob job) {
    if (!CommJob.API_VERSION.equals(job.getApiVersion())) {
      add(
          "apiVersion",
          job.getApiVersion() == null
              ? "required (" + CommJob.API_VERSION + ")"
              : "unknown value %s (expected %s)"
                  .formatted(EchoedValue.quoted(job.getApiVersion()), CommJob.API_VERSION));
    }
    if (!"CommJob".equals(job.getKind())) {
      add(
          "kind",
          job.getKind() == null
              ? "required (CommJob)"
              : "unknown value " + EchoedValue.quoted(job.getKind()) + " (expected CommJob)");
    }
    checkName(job.getMetadata() == null ? null : job.getMetadata().getName());
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      add("spec", "required");
      return;
    }
    checkSpec(spec);
  }

  private void checkName(String name) {
    if (name == null || name.isEmpty()) {
      add("metadata.name", "required");
      return;
    }
    if (!CommJob.NAME_FORM.matcher(name).matches()) {
      add(
          "metadata.name",
          "%s is not a valid job name (lower-case letters, digits and '-', starting with a letter"
                  .formatted(EchoedValue.quoted(name))
              + " and ending with a letter or digit: it also names the job's headless Service)");
    }
    if (name.length() > CommJob.MAX_NAME_LENGTH) {
      add(
          "metadata.name",
          "%s is %d characters long, at most %d (the names of the job's pods and ConfigMaps"
                  .formatted(EchoedValue.quoted(name), name.length(), CommJob.MAX_NAME_LENGTH)
              + " are made from it)");
    }
  }

  private void checkSpec(CommJobSpec spec) {
    Integer worldSize = spec.getWorldSize();
    boolean worldInRange = false;
    if (worldSize == null) {
      add("spec.worldSize", "required");
    } else {
      worldInRange = inRange("spec.worldSize", worldSize, 1, 4096);
    }
    int ranksPerPod =
        Objects.requireNonNullElse(spec.getRanksPerPod(), CommJobDefaults.RANKS_PER_POD);
    boolean ranksInRange =
        inRange("spec.ranksPerPod", ranksPerPod, 1, CommJobDefaults.MAX_RANKS_PER_POD);
    if (worldInRange && ranksInRange && worldSize % ranksPerPod != 0) {
      add(
          "spec.worldSize",
          worldSize + " is not a multiple of spec.ranksPerPod (" + ranksPerPod + ")");
    }
    String podSpan =
        worldInRange && ranksInRange && worldSize > ranksPerPod
            ? "spec.worldSize (%d) spans %d pods of spec.ranksPerPod (%d)"
                .formatted(worldSize, (worldSize + ranksPerPod - 1) / ranksPerPod, ranksPerPod)
            : null;
    Workload workload = spec.getWorkload();
    if (workload == null) {
      add("spec.workload", "required");
    } else {
      new WorkloadRules(podSpan, spec.getDevice(), worldInRange ? worldSize : 0).check(workload);
    }
    checkHeuristic(spec.getHeuristic());
    if (spec.getTimeoutSeconds() != null) {
      inRange("spec.timeoutSeconds", spec.getTimeoutSeconds(), 1, 86400);
    }
    if (spec.getSchedulingTimeoutSeconds() != null) {
      inRange("spec.schedulingTimeoutSeconds", spec.getSchedulingTimeoutSeconds(), 1, 604800);
    }
    if (spec.getTtlSecondsAfterFinished() != null) {
      inRange(
          "spec.ttlSecondsAfterFinished", spec.getTtlSecondsAfterFinished(), 0, Integer.MAX_VALUE);
    }
    if (spec.getFailurePolicy() != null) {
      checkFailurePolicy(spec.getFailurePolicy());
    }
    if (spec.getGang() != null && spec.getGang().getScheduler() == null) {
      add("spec.gang.scheduler", "required (volcano or coscheduling)");
    }
    if (spec.getBaseline() != null) {
      checkBaseline(spec.getBaseline(), workload);
    }
    if (spec.getSharedMemorySize() != null) {
      checkSharedMemory(spec.getSharedMemorySize());
    }
    if (spec.getExpect() != null) {
      checkExpect(spec.getExpect(), workload);
    }
  }

  /**
   * Each rule names the benchmark's collective, a size it measures and a floor or ceiling that is
   * not negative: a rule that could never be checked would leave the gate Unknown forever.
   */
  private void checkExpect(List<Expectation> rules, Workload workload) {
    if (!listSize("spec.expect", rules, 1, 64)) {
      return;
    }
    BenchmarkSpec benchmark = null;
    if (workload != null && workload.getKind() != null) {
      if (workload.getKind() != WorkloadKind.BENCHMARK) {
        add(
            "spec.expect",
            "checks benchmark figures, but spec.workload.kind is " + workload.getKind().wireName());
        return;
      }
      benchmark = workload.getBenchmark();
    }
    Set<Long> measured = benchmark == null ? null : sweptBytes(benchmark);
    Collective collective =
        benchmark == null
            ? null
            : Objects.requireNonNullElse(benchmark.getCollective(), CommJobDefaults.COLLECTIVE);
    for (int i = 0; i < rules.size(); i++) {
      String at = "spec.expect[" + i + "]";
      Expectation rule = rules.get(i);
      if (rule == null) {
        add(at, "required");
        continue;
      }
      if (rule.getCollective() == null) {
        add(at + ".collective", "required");
      } else if (collective != null && rule.getCollective() != collective) {
        add(
            at + ".collective",
            "%s is not measured: the benchmark sweeps %s"
                .formatted(rule.getCollective().wireName(), collective.wireName()));
      }
      OptionalLong bytes = ExpectedSize.bytes(rule.getBytes());
      if (rule.getBytes() == null) {
        add(at + ".bytes", "required");
      } else if (bytes.isEmpty()) {
        add(
            at + ".bytes",
            EchoedValue.quoted(rule.getBytes()) + " is not a size (e.g. 67108864 or 64Mi)");
      } else if (measured != null && !measured.contains(bytes.getAsLong())) {
        add(
            at + ".bytes",
            "%s (%d bytes) is not a size the benchmark measures (%s)"
                .formatted(
                    rule.getBytes(),
                    bytes.getAsLong(),
                    measured.stream().sorted().map(b -> b + "").collect(Collectors.joining(", "))));
      }
      if (rule.getAlgorithm() != null
          && benchmark != null
          && benchmark.getAlgorithms() != null
          && !benchmark.getAlgorithms().contains(rule.getAlgorithm())) {
        add(
            at + ".algorithm",
            rule.getAlgorithm().wireName() + " is not among spec.workload.benchmark.algorithms");
      }
      if (rule.getMinBusBandwidthGBps() == null && rule.getMaxLatencyMicros() == null) {
        add(at, "needs minBusBandwidthGBps or maxLatencyMicros");
      }
      if (rule.getMinBusBandwidthGBps() != null && !(rule.getMinBusBandwidthGBps() >= 0)) {
        add(at + ".minBusBandwidthGBps", notANonNegativeNumber(rule.getMinBusBandwidthGBps()));
      }
      if (rule.getMinBusBandwidthGBps() != null
          && rule.getMinBusBandwidthGBps() == Double.POSITIVE_INFINITY) {
        add(at + ".minBusBandwidthGBps", "Infinity is a floor no figure can reach");
      }
      // A ceiling of zero no call can meet, and an infinite one checks nothing: both are slips.
      if (rule.getMaxLatencyMicros() != null && !(rule.getMaxLatencyMicros() >= 0)) {
        add(at + ".maxLatencyMicros", notANonNegativeNumber(rule.getMaxLatencyMicros()));
      } else if (rule.getMaxLatencyMicros() != null
          && (rule.getMaxLatencyMicros() == 0 || rule.getMaxLatencyMicros().isInfinite())) {
        add(
            at + ".maxLatencyMicros",
            rule.getMaxLatencyMicros() + " is not a latency ceiling (more than 0 and finite)");
      }
    }
  }

  /** The per-rank sizes a benchmark measures: its sizes, or tokens x hiddenSize x dtype bytes. */
  private static Set<Long> sweptBytes(BenchmarkSpec benchmark) {
    Set<Long> bytes = new HashSet<>();
    if (benchmark.getSizes() != null) {
      benchmark.getSizes().stream().filter(Objects::nonNull).forEach(bytes::add);
    }
    if (benchmark.getTokens() != null) {
      int hiddenSize =
          Objects.requireNonNullElse(benchmark.getHiddenSize(), CommJobDefaults.HIDDEN_SIZE);
      DType dtype = Objects.requireNonNullElse(benchmark.getDtype(), CommJobDefaults.DTYPE);
      benchmark.getTokens().stream()
          .filter(Objects::nonNull)
          .forEach(tokens -> bytes.add((long) tokens * hiddenSize * dtype.bytes()));
    }
    return bytes;
  }

  private void checkHeuristic(Heuristic heuristic) {
    if (heuristic == null) {
      return;
    }
    HeuristicName name = Objects.requireNonNullElse(heuristic.getName(), CommJobDefaults.HEURISTIC);
    Algorithm fixed = heuristic.getFixedAlgorithm();
    if (name == HeuristicName.FIXED) {
      if (fixed == null) {
        add("spec.heuristic.fixedAlgorithm", "required when spec.heuristic.name is fixed");
      } else if (fixed == Algorithm.AUTO) {
        add("spec.heuristic.fixedAlgorithm", "auto cannot be fixed (name an algorithm)");
      }
    } else if (fixed != null) {
      add(
          "spec.heuristic.fixedAlgorithm",
          "set but spec.heuristic.name is %s (only fixed uses it)".formatted(name.wireName()));
    }
    if (name == HeuristicName.MEASURED
        && (heuristic.getTuningRef() == null || heuristic.getTuningRef().isBlank())) {
      add("spec.heuristic.tuningRef", "required when spec.heuristic.name is measured");
    }
  }

  private void checkBaseline(Baseline baseline, Workload workload) {
    String ref = baseline.getConfigMapRef();
    if (ref == null || ref.isBlank()) {
      add("spec.baseline.configMapRef", "required");
    } else {
      configMapName("spec.baseline.configMapRef", ref);
    }
    double slowdown =
        Objects.requireNonNullElse(
            baseline.getMaxSlowdownPercent(), CommJobDefaults.MAX_SLOWDOWN_PERCENT);
    if (!(slowdown >= 0 && slowdown <= 1000)) {
      add("spec.baseline.maxSlowdownPercent", slowdown + " is outside 0..1000");
    }
    if (workload != null
        && workload.getKind() != null
        && workload.getKind() != WorkloadKind.BENCHMARK) {
      add(
          "spec.baseline",
          "compares benchmark reports, but spec.workload.kind is " + workload.getKind().wireName());
    }
  }

  private void checkSharedMemory(String size) {
    if (!QUANTITY.matcher(size).matches()) {
      add(
          "spec.sharedMemorySize",
          EchoedValue.quoted(size) + " is not a quantity (e.g. 8Gi, 512Mi)");
      return;
    }
    BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(size));
    if (bytes.compareTo(BigDecimal.valueOf(MIN_SHARED_MEMORY_BYTES)) < 0) {
      add(
          "spec.sharedMemorySize",
          size + " is below the minimum 64Mi (the container default, which NCCL already outgrows)");
    } else if (bytes.compareTo(BigDecimal.valueOf(MAX_SHARED_MEMORY_BYTES)) > 0) {
      add(
          "spec.sharedMemorySize",
          EchoedValue.quoted(size)
              + " is above the maximum 1Ti (it also raises the pod's memory limit by as much)");
    }
  }

  /** The checks of spec.workload, which depend on where the ranks are and on the device. */
  private final class WorkloadRules {
    private static final Set<Algorithm> PEER_MEMORY_ALGORITHMS =
        Set.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.COPYENGINE);

    /** Why the ranks do not all share one pod, or null when they do. */
    private final String podSpan;

    /** The device the job names; null when it names none (a local run may then choose). */
    private final DeviceKind device;

    /** spec.worldSize, or 0 when it is missing or out of range (and said so already). */
    private final int worldSize;

    WorkloadRules(String podSpan, DeviceKind device, int worldSize) {
      this.podSpan = podSpan;
      this.device = device;
      this.worldSize = worldSize;
    }

    void check(Workload workload) {
      WorkloadKind kind = workload.getKind();
      if (kind == null) {
        add("spec.workload.kind", "required (" + WorkloadKind.wireNames() + ")");
        return;
      }
      // the kind's own section first: a missing one is the likelier mistake
      Map<WorkloadKind, Object> sections = new EnumMap<>(WorkloadKind.class);
      sections.put(WorkloadKind.BENCHMARK, workload.getBenchmark());
      sections.put(WorkloadKind.TUNE, workload.getTune());
      sections.put(WorkloadKind.PROGRAM, workload.getProgram());
      sections.put(WorkloadKind.FABRIC, workload.getFabric());
      section(kind, kind, sections.get(kind));
      for (WorkloadKind other :
          List.of(
              WorkloadKind.BENCHMARK,
              WorkloadKind.TUNE,
              WorkloadKind.PROGRAM,
              WorkloadKind.FABRIC)) {
        if (other != kind) {
          section(kind, other, sections.get(other));
        }
      }
      switch (kind) {
        case BENCHMARK -> {
          if (workload.getBenchmark() != null) {
            benchmark(workload.getBenchmark());
          }
        }
        case TUNE -> {
          if (workload.getTune() != null) {
            tune(workload.getTune());
          }
        }
        case PROGRAM -> {
          if (workload.getProgram() != null) {
            program(workload.getProgram());
          }
        }
        case FABRIC -> {
          if (workload.getFabric() != null) {
            fabric(workload.getFabric());
          }
        }
      }
    }

    private void section(WorkloadKind kind, WorkloadKind section, Object value) {
      String field = "spec.workload." + section.wireName();
      if (kind == section && value == null) {
        add(field, "required when spec.workload.kind is " + kind.wireName());
      } else if (kind != section && value != null) {
        add(field, "set but spec.workload.kind is " + kind.wireName());
      }
    }

    private void fabric(FabricSpec fabric) {
      String at = "spec.workload.fabric";
      if (fabric.getBytes() != null) {
        Long bytes = fabric.getBytes();
        if (bytes < CommJob.MESSAGE_ALIGNMENT_BYTES || bytes > (1L << 30)) {
          add(at + ".bytes", bytes + " is outside " + CommJob.MESSAGE_ALIGNMENT_BYTES + "..1Gi");
        } else if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
          add(
              at + ".bytes",
              bytes + " bytes is not a multiple of " + CommJob.MESSAGE_ALIGNMENT_BYTES);
        }
      }
      if (fabric.getIterations() != null) {
        inRange(at + ".iterations", fabric.getIterations(), 1, 10000);
      }
      Double slowFraction = fabric.getSlowFraction();
      if (slowFraction != null && !(slowFraction >= 0 && slowFraction <= 1)) {
        add(at + ".slowFraction", slowFraction + " is outside 0..1");
      }
    }

    private void benchmark(BenchmarkSpec benchmark) {
      String at = "spec.workload.benchmark";
      Collective collective =
          Objects.requireNonNullElse(benchmark.getCollective(), CommJobDefaults.COLLECTIVE);
      DType dtype = Objects.requireNonNullElse(benchmark.getDtype(), CommJobDefaults.DTYPE);
      int hiddenSize =
          Objects.requireNonNullElse(benchmark.getHiddenSize(), CommJobDefaults.HIDDEN_SIZE);
      boolean hiddenInRange = inRange(at + ".hiddenSize", hiddenSize, 1, 1048576);
      if ((benchmark.getTokens() == null) == (benchmark.getSizes() == null)) {
        add(at, "needs exactly one of tokens and sizes");
      }
      messageSizes(
          at, benchmark.getTokens(), benchmark.getSizes(), hiddenInRange ? hiddenSize : 0, dtype);
      List<Algorithm> algorithms = benchmark.getAlgorithms();
      algorithms(at, algorithms);
      copyEngineCollective(at, collective, algorithms);
      if (benchmark.getWarmupIterations() != null) {
        inRange(at + ".warmupIterations", benchmark.getWarmupIterations(), 0, 100000);
      }
      if (benchmark.getIterations() != null) {
        inRange(at + ".iterations", benchmark.getIterations(), 1, 1000000);
      }
      if (Objects.requireNonNullElse(benchmark.getInPlace(), CommJobDefaults.IN_PLACE)) {
        inPlace(at, collective, algorithms);
      }
      pattern(at, benchmark, collective, dtype, hiddenInRange ? hiddenSize : 0);
      Double threshold = benchmark.getOutlierThresholdPercent();
      if (threshold != null && !(threshold >= 0 && threshold <= 10000)) {
        // the CRD's bounds, which a job run outside a cluster would otherwise skip (NaN included)
        add(at + ".outlierThresholdPercent", "must be between 0 and 10000, got " + threshold);
      }
    }

    /**
     * A fused pattern normalizes each token row of the all-reduced tensor, so it needs an
     * all-reduce into a separate output whose sizes are whole rows, and FP8 output needs its scale.
     */
    private void pattern(
        String at, BenchmarkSpec benchmark, Collective collective, DType dtype, int hiddenSize) {
      pattern(
          at,
          benchmark.getPattern(),
          benchmark.getFp8Scale(),
          benchmark.getFp32Accumulate(),
          Objects.requireNonNullElse(benchmark.getInPlace(), CommJobDefaults.IN_PLACE),
          benchmark.getSizes(),
          collective,
          dtype,
          hiddenSize);
    }

    /**
     * As for a benchmark, for any sweep that names a pattern (a tune sweep's is never in place).
     */
    private void pattern(
        String at,
        AllReducePattern named,
        Double fp8Scale,
        Boolean fp32Accumulate,
        boolean inPlace,
        List<Long> sizes,
        Collective collective,
        DType dtype,
        int hiddenSize) {
      AllReducePattern pattern = Objects.requireNonNullElse(named, CommJobDefaults.PATTERN);
      if (fp8Scale != null && !(fp8Scale >= 1e-12 && fp8Scale <= 1e12)) {
        add(at + ".fp8Scale", "must be a positive number between 1e-12 and 1e12, got " + fp8Scale);
      } else if (fp8Scale != null && !pattern.quantizesToFp8()) {
        // a scale the run would never use is more likely a forgotten pattern than a wish
        add(
            at + ".fp8Scale",
            "applies to pattern "
                + AllReducePattern.ALLREDUCE_RESIDUAL_RMS_NORM_FP8.wireName()
                + " only, not "
                + pattern.wireName());
      }
      if (!pattern.normalizes()) {
        if (Boolean.FALSE.equals(fp32Accumulate)) {
          // as for the scale: only the fused kernels accumulate in the element type on request
          add(
              at + ".fp32Accumulate",
              "false (summing in the element type) applies to the fused patterns only, not "
                  + pattern.wireName());
        }
        return;
      }
      if (collective != Collective.ALLREDUCE) {
        add(
            at + ".pattern",
            pattern.wireName() + " applies to allreduce only, not " + collective.wireName());
      }
      if (inPlace) {
        add(at + ".inPlace", "a fused pattern writes a separate output; set inPlace to false");
      }
      if (pattern.quantizesToFp8() && fp8Scale == null) {
        add(at + ".fp8Scale", "required by pattern " + pattern.wireName());
      }
      long rowBytes = (long) hiddenSize * dtype.bytes();
      for (int i = 0; sizes != null && rowBytes > 0 && i < sizes.size(); i++) {
        Long size = sizes.get(i);
        if (size != null && size % rowBytes != 0) {
          add(
              at + ".sizes[" + i + "]",
              "%d bytes is not a whole number of tokens of hiddenSize %d %s (%d bytes each), which RMSNorm needs"
                  .formatted(size, hiddenSize, dtype.wireName(), rowBytes));
        }
      }
    }

    /** In place is all-reduce with the output over the input, by the algorithms that allow it. */
    private void inPlace(String at, Collective collective, List<Algorithm> algorithms) {
      if (collective != Collective.ALLREDUCE) {
        add(
            at + ".inPlace",
            "applies to allreduce only (%s's output is not the shape of its input)"
                .formatted(collective.wireName()));
      }
      for (int i = 0; algorithms != null && i < algorithms.size(); i++) {
        Algorithm algorithm = algorithms.get(i);
        if (algorithm != null && !algorithm.mayRunInPlace()) {
          add(
              at + ".algorithms[" + i + "]",
              algorithm.wireName()
                  + " does not run in place (a rank's peers read its input while it would"
                  + " overwrite it); with inPlace use nccl, ring or auto");
        }
      }
    }

    private void tune(TuneSpec tune) {
      String at = "spec.workload.tune";
      DType dtype = Objects.requireNonNullElse(tune.getDtype(), CommJobDefaults.DTYPE);
      int hiddenSize =
          Objects.requireNonNullElse(tune.getHiddenSize(), CommJobDefaults.HIDDEN_SIZE);
      boolean hiddenInRange = inRange(at + ".hiddenSize", hiddenSize, 1, 1048576);
      if (tune.getTokens() != null && tune.getSizes() != null) {
        add(at, "takes tokens or sizes, not both");
      }
      messageSizes(at, tune.getTokens(), tune.getSizes(), hiddenInRange ? hiddenSize : 0, dtype);
      List<Algorithm> algorithms = tune.getAlgorithms();
      algorithms(at, algorithms);
      Collective collective =
          Objects.requireNonNullElse(tune.getCollective(), CommJobDefaults.COLLECTIVE);
      if (collective != Collective.ALLREDUCE
          && collective != Collective.ALLGATHER
          && collective != Collective.REDUCESCATTER) {
        add(
            at + ".collective",
            "tune measures allreduce, allgather or reducescatter, not " + collective.wireName());
      }
      copyEngineCollective(at, collective, algorithms);
      pattern(
          at,
          tune.getPattern(),
          tune.getFp8Scale(),
          tune.getFp32Accumulate(),
          false,
          tune.getSizes(),
          collective,
          dtype,
          hiddenInRange ? hiddenSize : 0);
      for (int i = 0; algorithms != null && i < algorithms.size(); i++) {
        if (algorithms.get(i) == Algorithm.AUTO) {
          add(
              at + ".algorithms[" + i + "]",
              "auto is not a candidate (tune measures the algorithms auto chooses from)");
        }
      }
      if (tune.getWarmupIterations() != null) {
        inRange(at + ".warmupIterations", tune.getWarmupIterations(), 0, 100000);
      }
      if (tune.getIterations() != null) {
        inRange(at + ".iterations", tune.getIterations(), 1, 1000000);
      }
      if (tune.getTableName() != null) {
        configMapName(at + ".tableName", tune.getTableName());
      }
    }

    private void program(ProgramSpec program) {
      String at = "spec.workload.program";
      if (program.getName() == null) {
        add(at + ".name", "required");
      }
      Shape shape = program.getShape();
      if (shape != null) {
        positive(at + ".shape.m", shape.getM());
        positive(at + ".shape.n", shape.getN());
        positive(at + ".shape.k", shape.getK());
      }
      boolean chunksInRange =
          program.getChunks() == null || inRange(at + ".chunks", program.getChunks(), 1, 64);
      if (shape != null && program.getName() != null && chunksInRange) {
        problems.addAll(
            ProgramShapeRules.problems(
                program.getName(),
                shape.getM(),
                shape.getK(),
                Objects.requireNonNullElse(program.getChunks(), CommJobDefaults.PROGRAM_CHUNKS),
                worldSize));
      }
      if (program.getPasses() != null) {
        distinct(at + ".passes", program.getPasses());
      }
      if (program.getStreams() != null) {
        inRange(at + ".streams", program.getStreams(), 1, 32);
      }
      if (podSpan != null && program.getBackend() == CommBackend.IPC) {
        add(
            at + ".backend",
            "ipc exchanges buffers among the ranks of one pod, but %s; use nccl"
                .formatted(podSpan));
      }
      if (program.getWarmupIterations() != null) {
        inRange(at + ".warmupIterations", program.getWarmupIterations(), 0, 10000);
      }
      if (program.getIterations() != null) {
        inRange(at + ".iterations", program.getIterations(), 1, 100000);
      }
      if (program.getCommunicationSMs() != null) {
        inRange(at + ".communicationSMs", program.getCommunicationSMs(), 0, 160);
      }
    }

    /** Entries, sizes and alignment of a sweep; {@code hiddenSize} 0 when it is itself wrong. */
    private void messageSizes(
        String at, List<Integer> tokens, List<Long> sizes, int hiddenSize, DType dtype) {
      if (tokens != null && listSize(at + ".tokens", tokens, 1, 64)) {
        for (int i = 0; i < tokens.size(); i++) {
          String field = at + ".tokens[" + i + "]";
          Integer count = tokens.get(i);
          if (count == null) {
            continue;
          }
          if (count < 1) {
            add(field, count + " is below the minimum 1");
          } else if (hiddenSize > 0) {
            long bytes = (long) count * hiddenSize * dtype.bytes();
            String product =
                "%d tokens x hiddenSize %d x %d bytes (%s) = %d bytes"
                    .formatted(count, hiddenSize, dtype.bytes(), dtype.wireName(), bytes);
            // the ranks move 16-byte vectors and refuse other sizes
            if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
              add(field, product + " is not a multiple of " + CommJob.MESSAGE_ALIGNMENT_BYTES);
            } else if (bytes > MAX_BYTES_PER_RANK) {
              add(
                  field,
                  product
                      + " is above the %d-byte limit of one rank's buffer"
                          .formatted(MAX_BYTES_PER_RANK));
            }
          }
        }
        distinct(at + ".tokens", tokens);
      }
      if (sizes != null && listSize(at + ".sizes", sizes, 1, 64)) {
        for (int i = 0; i < sizes.size(); i++) {
          String field = at + ".sizes[" + i + "]";
          Long bytes = sizes.get(i);
          if (bytes == null) {
            continue;
          }
          if (bytes < CommJob.MESSAGE_ALIGNMENT_BYTES) {
            add(field, bytes + " bytes is below the minimum " + CommJob.MESSAGE_ALIGNMENT_BYTES);
          } else if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
            add(field, bytes + " bytes is not a multiple of " + CommJob.MESSAGE_ALIGNMENT_BYTES);
          } else if (bytes > MAX_BYTES_PER_RANK) {
            add(
                field,
                "%d bytes is above the %d-byte limit of one rank's buffer"
                    .formatted(bytes, MAX_BYTES_PER_RANK));
          }
        }
        distinct(at + ".sizes", sizes);
      }
    }

    /** Copyengine moves whole shards, which only all-gather and reduce-scatter consist of. */
    private void copyEngineCollective(
        String at, Collective collective, List<Algorithm> algorithms) {
      if (algorithms == null
          || collective == Collective.ALLGATHER
          || collective == Collective.REDUCESCATTER) {
        return;
      }
      for (int i = 0; i < algorithms.size(); i++) {
        if (algorithms.get(i) == Algorithm.COPYENGINE) {
          add(
              at + ".algorithms[" + i + "]",
              "copyengine runs allgather and reducescatter, not " + collective.wireName());
        }
      }
    }

    /** A list of algorithms: 1 to 8, no repeats, each able to run where the ranks are. */
    private void algorithms(String at, List<Algorithm> algorithms) {
      String field = at + ".algorithms";
      if (algorithms == null || !listSize(field, algorithms, 1, 8)) {
        return;
      }
      distinct(field, algorithms);
      for (int i = 0; i < algorithms.size(); i++) {
        Algorithm algorithm = algorithms.get(i);
        if (podSpan != null && PEER_MEMORY_ALGORITHMS.contains(algorithm)) {
          add(
              field + "[" + i + "]",
              "%s exchanges buffers among the ranks of one pod, but %s; use %s"
                  .formatted(
                      algorithm.wireName(),
                      podSpan,
                      // a tune's candidates are measured algorithms: auto is none
                      at.endsWith(".tune") ? "nccl" : "nccl or auto"));
        }
        if (algorithm == Algorithm.RING && device == DeviceKind.CUDA) {
          add(
              field + "[" + i + "]",
              "ring is the cpu device's stand-in for NCCL; on device cuda use nccl");
        }
      }
    }
  }

  private void configMapName(String field, String name) {
    if (name.length() > MAX_CONFIG_MAP_NAME_LENGTH || !CONFIG_MAP_NAME.matcher(name).matches()) {
      add(field, EchoedValue.quoted(name) + " is not a valid ConfigMap name");
    }
  }

  /** The CRD's bounds, for a local run, which no API server checks. */
  private void checkFailurePolicy(FailurePolicy policy) {
    if (policy.getMaxRestarts() != null) {
      inRange("spec.failurePolicy.maxRestarts", policy.getMaxRestarts(), 0, 100);
    }
    List<RestartCause> restartOn = policy.getRestartOn();
    if (restartOn != null
        && listSize("spec.failurePolicy.restartOn", restartOn, 1, RestartCause.values().length)) {
      distinct("spec.failurePolicy.restartOn", restartOn);
    }
  }

  /**
   * Why {@code value}, which is not at least 0, is refused: NaN is no number, not a negative one.
   */
  private static String notANonNegativeNumber(double value) {
    return Double.isNaN(value) ? "NaN is not a number" : value + " is negative";
  }

  private boolean inRange(String field, int value, int min, int max) {
    if (value < min) {
      add(field, value + " is below the minimum " + min);
      return false;
    }
    if (value > max) {
      add(field, value + " is above the maximum " + max);
      return false;
    }
    return true;
  }

  private void positive(String field, Long value) {
    if (value != null && value < 1) {
      add(field, value + " is below the minimum 1");
    }
  }

  private boolean listSize(String field, List<?> list, int min, int max) {
    if (list.size() < min) {
      add(field, "needs at least " + min + " item" + (min == 1 ? "" : "s"));
      return false;
    }
    if (list.size() > max) {
      add(field, list.size() + " items is above the maximum " + max);
      return false;
    }
    return true;
  }

  /** Each entry present and listed once. */
  private void distinct(String field, List<?> list) {
    Set<Object> seen = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      if (item == null) {
        add(field + "[" + i + "]", "required");
      } else if (!seen.add(item)) {
        add(field + "[" + i + "]", EchoedValue.quoted(item) + " is listed twice");
      }
    }
  }

  private void add(String field, String message) {
    problems.add(new SpecProblem(field, message));
  }
}
