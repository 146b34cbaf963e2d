package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.Workload;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.spec.InvalidJobException;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code gpucomm bench}: a benchmark described by flags instead of a file; builds the CommJob in
 * memory and runs it like {@code gpucomm run}.
 */
final class BenchCommand implements Command {
  static final List<Long> DEFAULT_SIZES = List.of(4096L, 65536L, 1L << 20);

  @Override
  public String name() {
    return "bench";
  }

  @Override
  public String summary() {
    return "benchmark one collective from flags (builds a CommJob and runs it locally)";
  }

  @Override
  public String synopsis() {
    return "[--collective C] [--dtype D] [--sizes LIST | --tokens LIST --hidden N] [--algorithms LIST] [--world N] [options]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value(
            "collective",
            "C",
            "allreduce (default), allgather, reducescatter, broadcast, collectivepermute"),
        Option.value("dtype", "D", "bf16 (default), fp16, fp32"),
        Option.value("sizes", "LIST", "bytes per rank, e.g. 4K,64K,1M (default 4K,64K,1M)"),
        Option.value("tokens", "LIST", "token counts, e.g. 32,128,1024 (with --hidden)"),
        Option.value("hidden", "N", "elements per token (default 8192)"),
        Option.value(
            "algorithms",
            "LIST",
            "e.g. auto,oneshot,twoshot (default: auto and every available one)"),
        Option.value("world", "N", "ranks (default: the GPUs here, else 2)"),
        Option.value("ranks-per-pod", "N", "ranks sharing peer memory (default: the world)"),
        Option.value("iterations", "N", "timed calls per point (default 200)"),
        Option.value("warmup", "N", "untimed calls per point (default 20)"),
        Option.flag("no-graph", "time eager calls only"),
        Option.flag(
            "in-place",
            "all-reduce with the output in the input's buffer, as torch.distributed.all_reduce"
                + " (nccl and ring only)"),
        Option.value("heuristic", "NAME", "trtllm (default), vllm, measured, fixed"),
        Option.value("fixed", "ALGO", "the algorithm of --heuristic fixed"),
        Option.value("tuning-ref", "FILE", "the tuning table of --heuristic measured"),
        Option.value("seed", "N", "seed of the random inputs (default: fresh)"),
        Option.value("name", "NAME", "job name, used for the report directory (default bench)"),
        Option.value(
            "device", "DEVICE", "cpu or cuda (default: cuda when there are GPUs, else cpu)"),
        Option.value("out", "DIR", "report directory (default reports/<name>)"));
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    args.noPositional();
    LoadedJob job;
    try {
      job = new JobLoader().complete(job(args), "gpucomm bench");
    } catch (InvalidJobException e) {
      throw flagError(args, e);
    }
    LocalRun.Result result =
        LocalJobExecution.execute(
            name(),
            job,
            args.value("device"),
            Optional.of(args.path("out").orElse(LocalJobExecution.defaultReportDir(job))),
            RankMode.JOB,
            false,
            context);
    return LocalJobExecution.conclude(name(), result, context);
  }

  /** The job's fields that bench's flags fill (no field path is a prefix of another). */
  private static final Map<String, String> FLAGS_OF_FIELDS =
      Map.ofEntries(
          Map.entry("spec.workload.benchmark.sizes", "sizes"),
          Map.entry("spec.workload.benchmark.tokens", "tokens"),
          Map.entry("spec.workload.benchmark.hiddenSize", "hidden"),
          Map.entry("spec.workload.benchmark.iterations", "iterations"),
          Map.entry("spec.workload.benchmark.warmupIterations", "warmup"),
          Map.entry("spec.workload.benchmark.algorithms", "algorithms"),
          Map.entry("spec.workload.benchmark.dtype", "dtype"),
          Map.entry("spec.workload.benchmark.collective", "collective"),
          Map.entry("spec.workload.benchmark.inPlace", "in-place"),
          Map.entry("spec.ranksPerPod", "ranks-per-pod"),
          Map.entry("spec.worldSize", "world"),
          Map.entry("spec.heuristic", "heuristic"),
          Map.entry("metadata.name", "name"));

  /**
   * The job was built from flags, so a problem with one of its fields is said with the flag the
   * user typed (--sizes, not spec.workload.benchmark.sizes[0]).
   */
  private static UsageException flagError(ParsedArgs args, InvalidJobException e) {
    for (Map.Entry<String, String> field : FLAGS_OF_FIELDS.entrySet()) {
      if (e.fieldPath().startsWith(field.getKey())) {
        return args.bad(field.getValue(), e.problem());
      }
    }
    return e;
  }

  private CommJob job(ParsedArgs args) {
    BenchmarkSpec benchmark =
        new BenchmarkSpec()
            .withCollective(
                enumValue(args, "collective", Collective::fromWireName, Collective.wireNames()))
            .withDtype(enumValue(args, "dtype", DType::fromWireName, DType.wireNames()))
            .withHiddenSize(args.integer("hidden", 1, 1 << 20).orElse(null))
            .withWarmupIterations(args.integer("warmup", 0, 100000).orElse(null))
            .withIterations(args.integer("iterations", 1, 1000000).orElse(null))
            .withSeed(args.value("seed").map(text -> parseSeed(args, text)).orElse(null));
    if (args.flag("no-graph")) {
      benchmark.setCudaGraph(false);
    }
    if (args.flag("in-place")) {
      benchmark.setInPlace(true);
    }
    Optional<String> tokens = args.value("tokens");
    Optional<String> sizes = args.value("sizes");
    if (tokens.isPresent() && sizes.isPresent()) {
      throw args.bad("tokens", "give --tokens or --sizes, not both");
    }
    if (tokens.isPresent()) {
      benchmark.setTokens(ListArgument.integers(args, "tokens", tokens.get()));
    } else {
      benchmark.setSizes(
          sizes.map(text -> ListArgument.sizes(args, "sizes", text)).orElse(DEFAULT_SIZES));
    }
    args.value("algorithms")
        .ifPresent(
            text ->
                benchmark.setAlgorithms(
                    ListArgument.items(
                        args,
                        "algorithms",
                        text,
                        item ->
                            Algorithm.fromWireName(item)
                                .orElseThrow(
                                    () ->
                                        args.bad(
                                            "algorithms",
                                            "unknown value '"
                                                + item
                                                + "' (expected "
                                                + Algorithm.wireNames()
                                                + ")")))));

    int world = args.integer("world", 1, 4096).orElseGet(() -> defaultWorld(args));
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(world);
    spec.setRanksPerPod(args.integer("ranks-per-pod", 1, 16).orElse(Math.min(world, 16)));
    spec.setWorkload(new Workload().withKind(WorkloadKind.BENCHMARK).withBenchmark(benchmark));
    Heuristic heuristic = new Heuristic();
    heuristic.setName(
        enumValue(args, "heuristic", HeuristicName::fromWireName, HeuristicName.wireNames()));
    args.value("fixed")
        .ifPresent(
            text ->
                heuristic.setFixedAlgorithm(
                    Algorithm.fromWireName(text)
                        .orElseThrow(
                            () ->
                                args.bad(
                                    "fixed",
                                    "unknown value '"
                                        + text
                                        + "' (expected "
                                        + Algorithm.wireNames()
                                        + ")"))));
    args.value("tuning-ref").ifPresent(heuristic::setTuningRef);
    requirePairedFlags(args, heuristic.getName());
    spec.setHeuristic(heuristic);
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName(args.value("name").orElse("bench")).build());
    job.setSpec(spec);
    return job;
  }

  /**
   * --fixed belongs to --heuristic fixed and --tuning-ref to --heuristic measured, each needing the
   * other: a flag that the chosen heuristic would ignore is a mistake, said here by its flag name.
   */
  private static void requirePairedFlags(ParsedArgs args, HeuristicName name) {
    if (args.value("fixed").isPresent() && name != HeuristicName.FIXED) {
      throw args.bad("fixed", "is for --heuristic fixed");
    }
    if (args.value("tuning-ref").isPresent() && name != HeuristicName.MEASURED) {
      throw args.bad("tuning-ref", "is for --heuristic measured");
    }
    if (name == HeuristicName.FIXED && args.value("fixed").isEmpty()) {
      throw args.bad("heuristic", "fixed needs --fixed ALGO");
    }
    if (name == HeuristicName.MEASURED && args.value("tuning-ref").isEmpty()) {
      throw args.bad("heuristic", "measured needs --tuning-ref FILE (a table from gpucomm tune)");
    }
  }

  /** All GPUs of the host (at most 8) when there are some; else 2 CPU ranks. */
  private static int defaultWorld(ParsedArgs args) {
    if (args.value("device").map(text -> DeviceChoice.parse("bench", text)).orElse(DeviceKind.CUDA)
        == DeviceKind.CPU) {
      return 2;
    }
    DeviceBackends.Probe cuda = new DeviceBackends().probe(DeviceKind.CUDA);
    return cuda.usable() ? Math.min(cuda.deviceCount(), 8) : 2;
  }

  private static long parseSeed(ParsedArgs args, String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw args.bad("seed", "'" + text + "' is not an integer");
    }
  }

  private static <T> T enumValue(
      ParsedArgs args, String option, Function<String, Optional<T>> parse, String expected) {
    return args.value(option)
        .map(
            text ->
                parse
                    .apply(text)
                    .orElseThrow(
                        () ->
                            args.bad(
                                option,
                                "unknown value '" + text + "' (expected " + expected + ")")))
        .orElse(null);
  }
}
