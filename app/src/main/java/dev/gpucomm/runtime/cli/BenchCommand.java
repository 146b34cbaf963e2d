package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.spec.InvalidJobException;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpucomm bench}: a benchmark described by flags instead of a file; builds the CommJob in
 * memory and runs it like {@code gpucomm run}.
 */
@Command(
    name = "bench",
    customSynopsis =
        "gpucomm bench [--collective C] [--dtype D] [--sizes LIST | --tokens LIST --hidden N"
            + " | -b SIZE -e SIZE (-f N | -i SIZE)] [--algorithms LIST] [--world N] [options]",
    description = "benchmark one collective from flags (builds a CommJob and runs it locally)",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n",
    footerHeading = ReportColumnsHelp.HEADING,
    footer = ReportColumnsHelp.COLUMNS,
    sortOptions = false)
final class BenchCommand implements Callable<Integer> {
  static final List<Long> DEFAULT_SIZES = List.of(4096L, 65536L, 1L << 20);

  /**
   * The lists' separator: a comma, but not a trailing one, which splitting would drop with the
   * empty item after it; left on the last item, the item's converter names it as a bad value.
   */
  private static final String LIST_SEPARATOR = ",(?!$)";

  private static final IntRange HIDDEN = new IntRange(1, 1 << 20);
  private static final IntRange WARMUP = new IntRange(0, 100000);
  private static final IntRange ITERATIONS = new IntRange(1, 1000000);
  private static final IntRange WORLD = new IntRange(1, 4096);
  private static final IntRange RANKS_PER_POD = new IntRange(1, CommJobDefaults.MAX_RANKS_PER_POD);

  /** The job's fields that bench's flags fill; a problem is said with the longest that matches. */
  private static final FlagSpelling FLAGS =
      new FlagSpelling(
          Map.ofEntries(
              Map.entry("spec.workload.benchmark.sizes", "--sizes"),
              Map.entry("spec.workload.benchmark.tokens", "--tokens"),
              Map.entry("spec.workload.benchmark.hiddenSize", "--hidden"),
              Map.entry("spec.workload.benchmark.iterations", "--iterations"),
              Map.entry("spec.workload.benchmark.warmupIterations", "--warmup"),
              Map.entry("spec.workload.benchmark.algorithms", "--algorithms"),
              Map.entry("spec.workload.benchmark.dtype", "--dtype"),
              Map.entry("spec.workload.benchmark.collective", "--collective"),
              Map.entry("spec.workload.benchmark.inPlace", "--in-place"),
              Map.entry("spec.workload.benchmark.pattern", "--pattern"),
              Map.entry("spec.workload.benchmark.fp8Scale", "--fp8-scale"),
              Map.entry("spec.workload.benchmark.fp32Accumulate", "--fp32-accumulate"),
              Map.entry("spec.ranksPerPod", "--ranks-per-pod"),
              Map.entry("spec.worldSize", "--world"),
              Map.entry("spec.heuristic", "--heuristic"),
              Map.entry("spec.heuristic.fixedAlgorithm", "--fixed"),
              Map.entry("spec.heuristic.tuningRef", "--tuning-ref"),
              Map.entry("metadata.name", "--name")));

  /** How many of the sizes a sweep skips its warning names before it counts the rest. */
  static final int MAX_SKIPPED_SHOWN = 8;

  /** The sizes of nccl-tests' sweep that no rank can run, with why; said after the sweep. */
  private final List<String> skipped = new ArrayList<>();

  private final CliContext context;

  @Spec CommandSpec spec;

  @Option(
      names = "--collective",
      paramLabel = "C",
      description = "allreduce (default), allgather, reducescatter, broadcast, collectivepermute")
  Collective collective;

  @Option(names = "--dtype", paramLabel = "D", description = "bf16 (default), fp16, fp32")
  DType dtype;

  @Option(
      names = "--sizes",
      split = LIST_SEPARATOR,
      hideParamSyntax = true,
      paramLabel = "LIST",
      converter = ByteSizeConverter.class,
      description = "bytes per rank, e.g. 4K,64K,1M (default 4K,64K,1M)")
  List<Long> sizes;

  @Option(
      names = "--tokens",
      split = LIST_SEPARATOR,
      hideParamSyntax = true,
      paramLabel = "LIST",
      description = "token counts, e.g. 32,128,1024 (with --hidden)")
  List<Integer> tokens;

  @Option(
      names = "--hidden",
      paramLabel = "N",
      description =
          "elements per token (default 8192): the rows of a fused pattern, and how the trtllm"
              + " heuristic counts tokens in --sizes")
  Integer hidden;

  @Option(
      names = "--algorithms",
      split = LIST_SEPARATOR,
      hideParamSyntax = true,
      paramLabel = "LIST",
      description = "e.g. auto,oneshot,twoshot (default: auto and every available one)")
  List<Algorithm> algorithms;

  @Option(
      names = "--world",
      paramLabel = "N",
      description = "ranks (default: the GPUs here, at most 8; 2 on the CPU)")
  Integer world;

  @Option(
      names = "--ranks-per-pod",
      paramLabel = "N",
      description =
          "ranks sharing peer memory (default: the world, up to 16; beyond, as few pods as divide"
              + " it)")
  Integer ranksPerPod;

  @Option(
      names = "--iterations",
      paramLabel = "N",
      description = "timed calls per point (default 200)")
  Integer iterations;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      description = "untimed calls per point (default 20)")
  Integer warmup;

  @Mixin NcclTestsFlags ncclTests = new NcclTestsFlags();

  @Option(names = "--no-graph", description = "time eager calls only")
  boolean noGraph;

  @Option(
      names = "--in-place",
      description =
          "all-reduce with the output in the input's buffer, as torch.distributed.all_reduce"
              + " (nccl and ring only)")
  boolean inPlace;

  @Option(
      names = "--pattern",
      paramLabel = "P",
      description =
          "allreduce (default), allreduceResidualRmsNorm, allreduceResidualRmsNormFp8:"
              + " all-reduce + residual + RMSNorm per token (needs --tokens, or whole-token --sizes)")
  AllReducePattern pattern;

  @Option(
      names = "--fp32-accumulate",
      negatable = true,
      description =
          "fused patterns: sum in fp32 (default) or, with --no-fp32-accumulate, in the dtype")
  Boolean fp32Accumulate;

  @Option(
      names = "--fp8-scale",
      paramLabel = "S",
      description = "per-tensor scale of the FP8 output of allreduceResidualRmsNormFp8")
  Double fp8Scale;

  @Option(
      names = "--heuristic",
      paramLabel = "NAME",
      description = "trtllm (default), vllm, measured, fixed")
  HeuristicName heuristic;

  @Option(
      names = "--fixed",
      paramLabel = "ALGO",
      description = "the algorithm of --heuristic fixed")
  Algorithm fixed;

  @Option(
      names = "--tuning-ref",
      paramLabel = "FILE",
      description = "the tuning table of --heuristic measured")
  String tuningRef;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "seed of the random inputs (default: fresh)")
  Long seed;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "job name, used for the report directory (default bench)")
  String name = "bench";

  @Option(
      names = "--device",
      paramLabel = "DEVICE",
      description = "cpu or cuda (default: cuda when there is a GPU for every rank, else cpu)")
  Optional<DeviceKind> device = Optional.empty();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "report directory (default reports/<name>)")
  Optional<Path> out = Optional.empty();

  BenchCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    LoadedJob job;
    try {
      job = new JobLoader().complete(job(), "gpucomm bench").withFieldSpelling(FLAGS);
    } catch (InvalidJobException e) {
      throw flagError(e);
    }
    int exitCode = LocalJobExecution.runToReport("bench", job, device, out, false, context);
    if (!skipped.isEmpty()) {
      // after the sweep, not before the checks that may still refuse it: a usage error is one line
      // (and one line however long the sweep: a sweep of thousands of sizes skips thousands)
      context
          .err()
          .println(
              "gpucomm bench: not measured: " + NcclTestsFlags.firstOf(skipped, MAX_SKIPPED_SHOWN));
    }
    return exitCode;
  }

  /**
   * The job was built from flags, so a problem with one of its fields is said with the flag the
   * user typed (--sizes, not spec.workload.benchmark.sizes[0]).
   */
  private RuntimeException flagError(InvalidJobException e) {
    Optional<String> field = FLAGS.fieldOf(e.fieldPath());
    if (field.isEmpty()) {
      return e;
    }
    String flag = FLAGS.apply(field.get());
    if (flag.equals("--fp32-accumulate") && Boolean.FALSE.equals(fp32Accumulate)) {
      // the field's one rule; said of the flag typed, which has no value to repeat
      return OptionValueException.ofNegated(
          spec,
          "--fp32-accumulate",
          "applies to the fused patterns only, not "
              + Objects.requireNonNullElse(pattern, CommJobDefaults.PATTERN).wireName());
    }
    if (flag.equals("--sizes") && ncclTests.sweepsSizes()) {
      flag = ncclTests.firstSizeFlag(); // the sizes came from nccl-tests' flags
    }
    return new OptionValueException(spec, flag, FLAGS.inFlags(e.problem()));
  }

  private CommJob job() {
    BenchmarkSpec benchmark =
        new BenchmarkSpec()
            .withCollective(collective)
            .withDtype(dtype)
            .withHiddenSize(HIDDEN.check(spec, "--hidden", hidden))
            .withWarmupIterations(
                WARMUP.check(
                    spec,
                    given("--warmup", warmup, "-w"),
                    either("--warmup", warmup, "-w", ncclTests.warmupIters)))
            .withIterations(
                ITERATIONS.check(
                    spec,
                    given("--iterations", iterations, "-n"),
                    either("--iterations", iterations, "-n", ncclTests.iters)))
            .withSeed(seed);
    if (noGraph) {
      benchmark.setCudaGraph(false);
    }
    if (inPlace) {
      benchmark.setInPlace(true);
    }
    benchmark.withPattern(pattern).withFp32Accumulate(fp32Accumulate).withFp8Scale(fp8Scale);
    if (tokens != null && sizes != null) {
      throw new OptionValueException(spec, "--tokens", "give --tokens or --sizes, not both");
    }
    ncclTests.requireCheck(spec);
    if (ncclTests.sweepsSizes() && (tokens != null || sizes != null)) {
      throw new OptionValueException(
          spec,
          ncclTests.firstSizeFlag(),
          "give nccl-tests' -b/-e/-f/-i or "
              + (tokens != null ? "--tokens" : "--sizes")
              + ", not both");
    }
    if (algorithms != null) {
      benchmark.setAlgorithms(algorithms);
    }
    Integer chosenWorld = WORLD.check(spec, "--world", world);
    int worldSize = chosenWorld != null ? chosenWorld : defaultWorld();
    if (tokens != null) {
      benchmark.setTokens(tokens);
    } else if (ncclTests.sweepsSizes()) {
      benchmark.setSizes(
          ncclTests.bytesPerRank(
              spec,
              collective != null ? collective : CommJobDefaults.COLLECTIVE,
              dtype != null ? dtype : CommJobDefaults.DTYPE,
              worldSize,
              skipped));
    } else {
      benchmark.setSizes(sizes != null ? sizes : DEFAULT_SIZES);
    }
    Integer chosenRanksPerPod = RANKS_PER_POD.check(spec, "--ranks-per-pod", ranksPerPod);
    CommJobSpec jobSpec = new CommJobSpec();
    jobSpec.setWorldSize(worldSize);
    jobSpec.setRanksPerPod(
        chosenRanksPerPod != null ? chosenRanksPerPod : LocalPods.ranksPerPod(worldSize));
    jobSpec.setWorkload(new Workload().withKind(WorkloadKind.BENCHMARK).withBenchmark(benchmark));
    Heuristic chosenHeuristic = new Heuristic();
    chosenHeuristic.setName(heuristic);
    chosenHeuristic.setFixedAlgorithm(fixed);
    chosenHeuristic.setTuningRef(tuningRef);
    requirePairedFlags(heuristic);
    jobSpec.setHeuristic(chosenHeuristic);
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName(name).build());
    job.setSpec(jobSpec);
    return job;
  }

  /** One of a gpucomm flag and its nccl-tests twin (-n, -w); both at once is a usage error. */
  private <T> T either(String ownFlag, T own, String ncclTestsFlag, T ncclTestsValue) {
    if (own != null && ncclTestsValue != null) {
      throw new OptionValueException(
          spec, ncclTestsFlag, "give " + ownFlag + " or " + ncclTestsFlag + ", not both");
    }
    return own != null ? own : ncclTestsValue;
  }

  /** The flag a value came from, for its error: {@code ownFlag} unless nccl-tests' one gave it. */
  private static String given(String ownFlag, Object own, String ncclTestsFlag) {
    return own != null ? ownFlag : ncclTestsFlag;
  }

  /**
   * --fixed belongs to --heuristic fixed and --tuning-ref to --heuristic measured, each needing the
   * other: a flag that the chosen heuristic would ignore is a mistake, said here by its flag name.
   */
  private void requirePairedFlags(HeuristicName chosen) {
    if (fixed != null && chosen != HeuristicName.FIXED) {
      throw new OptionValueException(spec, "--fixed", "is for --heuristic fixed");
    }
    if (tuningRef != null && chosen != HeuristicName.MEASURED) {
      throw new OptionValueException(spec, "--tuning-ref", "is for --heuristic measured");
    }
    if (chosen == HeuristicName.FIXED && fixed == null) {
      throw new OptionValueException(spec, "--heuristic", "fixed needs --fixed ALGO");
    }
    if (chosen == HeuristicName.MEASURED && tuningRef == null) {
      throw new OptionValueException(
          spec, "--heuristic", "measured needs --tuning-ref FILE (a table from gpucomm tune)");
    }
  }

  /** All GPUs of the host (at most 8) when there are some; else 2 CPU ranks. */
  private int defaultWorld() {
    if (device.orElse(DeviceKind.CUDA) == DeviceKind.CPU) {
      return 2;
    }
    DeviceBackends.Probe cuda = new DeviceBackends().probe(DeviceKind.CUDA);
    return cuda.usable() ? Math.min(cuda.deviceCount(), 8) : 2;
  }
}
