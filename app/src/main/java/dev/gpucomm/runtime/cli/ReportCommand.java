package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.report.fetch.ReportFormat;
import dev.gpucomm.runtime.report.fetch.ReportLookup;
import dev.gpucomm.runtime.report.fetch.ReportRequest;
import java.nio.file.Path;
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
        "gpucomm report DIR|JOB [-n NS] [--format md|json|csv|svg] [-o FILE] [--kubeconfig FILE]",
    description =
        "print a job's report (a local report directory, or a job's results ConfigMap in a"
            + " cluster)",
    descriptionHeading = "%n",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    footerHeading = ReportColumnsHelp.HEADING,
    footer = ReportColumnsHelp.COLUMNS,
    sortOptions = false)
final class ReportCommand implements Callable<Integer> {
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
      description = "md (default), json, csv or svg (the latency plot)")
  Optional<String> format = Optional.empty();

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
    ReportRequest request =
        new ReportRequest(target, namespace, reportFormat, output, kubeconfig, kubeContext);
    new ReportLookup(context.env()).deliver(request, context.out());
    return 0;
  }
}
