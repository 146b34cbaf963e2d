package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.report.fetch.ReportFormat;
import dev.gpucomm.runtime.report.fetch.ReportLookup;
import dev.gpucomm.runtime.report.fetch.ReportRequest;
import java.util.List;

/**
 * {@code gpucomm report}: prints (or saves) a report, from a local report directory or from a
 * finished job's results ConfigMap, in a cluster found as kubectl finds it.
 */
final class ReportCommand implements Command {
  @Override
  public String name() {
    return "report";
  }

  @Override
  public String summary() {
    return "print a job's report (a local report directory, or a job's results ConfigMap in a cluster)";
  }

  @Override
  public String synopsis() {
    return "DIR | JOB [-n NS] [--format md|json|csv|svg] [-o FILE] [--kubeconfig FILE]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value(
            "namespace",
            "n",
            "NS",
            "namespace of JOB (default GPUCOMM_NAMESPACE, then the context's)"),
        Option.value("format", "f", "FORMAT", "md (default), json, csv or svg (the latency plot)"),
        Option.value("output", "o", "FILE", "write the report to FILE (whole or not at all)"),
        Option.value(
            "kubeconfig", "FILE", "the cluster (default KUBECONFIG, ~/.kube/config, in-cluster)"),
        Option.value("context", "NAME", "the kubeconfig context (default its current one)"));
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    List<String> targets = args.positional();
    if (targets.size() != 1) {
      throw new UsageException(
          "gpucomm report: name one report directory or job (see gpucomm report --help)");
    }
    String formatName = args.value("format").orElse(ReportFormat.MD.flag());
    ReportFormat format =
        ReportFormat.fromFlag(formatName)
            .orElseThrow(
                () ->
                    args.bad(
                        "format", "'" + formatName + "' is not one of " + ReportFormat.flags()));
    ReportRequest request =
        new ReportRequest(
            targets.getFirst(),
            args.value("namespace"),
            format,
            args.path("output"),
            args.path("kubeconfig"),
            args.value("context"));
    new ReportLookup(context.env()).deliver(request, context.out());
    return 0;
  }
}
