package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import dev.gpucomm.runtime.report.fetch.ReportFormat;
import dev.gpucomm.runtime.report.fetch.ReportLookup;
import dev.gpucomm.runtime.report.fetch.ReportRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpucomm report}: prints (or saves) a report, from a local report directory or from a
 * finished job's results ConfigMap, in a cluster found as kubectl finds it.
 */
@Command(
    name = "report",
    customSynopsis =
        "gpucomm report DIR|JOB [-n NS] [--format md|json|csv|svg|nccl-tests [--algorithm A]]"
            + " [-o FILE] [--kubeconfig FILE]",
    description =
        "print a job's report (a local report directory, or a job's results ConfigMap in a"
            + " cluster)",
    descriptionHeading = "%n",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    footerHeading = ReportColumnsHelp.HEADING,
    footer = {ReportColumnsHelp.COLUMNS, ReportCommand.NCCL_TESTS_HELP},
    sortOptions = false)
final class ReportCommand implements Callable<Integer> {
  /** Formatted by picocli: %n is a line break; picocli puts a blank line before it. */
  static final String NCCL_TESTS_HELP =
      "The nccl-tests form (--format nccl-tests):%n"
          + "  nccl-tests' results table, so that what reads nccl-tests' output reads this:%n"
          + "  its header lines, one row per size for one algorithm, and its footer with%n"
          + "  the average bus bandwidth (# Avg bus bandwidth). Lines that describe the%n"
          + "  run start with #, as nccl-tests' own do.%n"
          + "  size, count      nccl-tests' size in bytes (the larger of the input and%n"
          + "                   output buffers) and elements of one rank's message%n"
          + "  type             half, bfloat16 or float%n"
          + "  redop, root      sum for all-reduce and reduce-scatter, none otherwise;%n"
          + "                   the root of broadcast (0), -1 otherwise%n"
          + "  time, algbw, busbw%n"
          + "                   out of place, then in place: the time per call in%n"
          + "                   microseconds is the slowest rank's median (nccl-tests%n"
          + "                   prints the mean), graph replay where measured, else eager;%n"
          + "                   the bandwidths in GB/s as nccl-tests computes them%n"
          + "  #wrong           always 0: a wrong result fails the job, which then leaves%n"
          + "                   no report to print%n"
          + "  N/A              not measured: the in-place columns of a job that ran out%n"
          + "                   of place (or the reverse), a size the algorithm skipped%n"
          + "  --algorithm A    the algorithm shown (default auto: the one the heuristic%n"
          + "                   chose at each size, as measured)%n";

  /** Fabric8's own per-request limits and retries could take minutes against a stalled server. */
  static final int DEFAULT_TIMEOUT_SECONDS = 60;

  static final int MAX_TIMEOUT_SECONDS = 3600;

  private final CliContext context;

  @Spec CommandSpec spec;

  // optional for picocli, so that its absence is said as it always was
  @Parameters(
      arity = "0..1",
      paramLabel = "DIR|JOB",
      description = "a report directory, or the name of a finished job")
  String target;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "namespace of JOB (default GPUCOMM_NAMESPACE, then the context's)")
  Optional<String> namespace = Optional.empty();

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      description =
          "md (default), json, csv, svg (the latency plot) or nccl-tests (nccl-tests' table)")
  Optional<String> format = Optional.empty();

  @Option(
      names = "--algorithm",
      paramLabel = "A",
      description =
          "the algorithm of --format nccl-tests (default auto: the heuristic's choice per size)")
  Optional<String> algorithm = Optional.empty();

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "write the report to FILE (whole or not at all)")
  Optional<Path> output = Optional.empty();

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "the cluster (default KUBECONFIG, ~/.kube/config, in-cluster)")
  Optional<Path> kubeconfig = Optional.empty();

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "the kubeconfig context (default its current one)")
  Optional<String> kubeContext = Optional.empty();

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      description =
          "how long reading JOB's report from the cluster may take, retries included, and"
              + " as long again for reading the kubeconfig, its credential plugin included"
              + " (default ${DEFAULT-VALUE})")
  int timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;

  ReportCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (target == null) {
      throw new ParameterException(spec.commandLine(), "name one report directory or job");
    }
    String formatName = format.orElse(ReportFormat.MD.flag());
    ReportFormat reportFormat =
        ReportFormat.fromFlag(formatName)
            .orElseThrow(
                () ->
                    new OptionValueException(
                        spec,
                        "--format",
                        "'" + formatName + "' is not one of " + ReportFormat.flags()));
    if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      throw new OptionValueException(
          spec,
          "--timeout",
          "must be from 1 to " + MAX_TIMEOUT_SECONDS + " seconds, got " + timeoutSeconds);
    }
    ReportRequest request =
        new ReportRequest(
            target,
            namespace,
            reportFormat,
            algorithm(reportFormat),
            output,
            kubeconfig,
            kubeContext,
            Duration.ofSeconds(timeoutSeconds));
    if (!context.debug()) {
      DebugLogging.quietLibraries();
    }
    new ReportLookup(context.env()).deliver(request, context.out());
    return 0;
  }

  /** The algorithm of the nccl-tests form; only that form shows a single algorithm. */
  private Algorithm algorithm(ReportFormat reportFormat) {
    if (algorithm.isEmpty()) {
      return Algorithm.AUTO;
    }
    if (reportFormat != ReportFormat.NCCL_TESTS) {
      throw new OptionValueException(
          spec, "--algorithm", "applies to --format nccl-tests only (the other forms show all)");
    }
    String name = algorithm.get();
    return Algorithm.fromWireName(name)
        .orElseThrow(
            () ->
                new OptionValueException(
                    spec,
                    "--algorithm",
                    EchoedValue.quoted(name) + " is not one of " + Algorithm.wireNames()));
  }
}
