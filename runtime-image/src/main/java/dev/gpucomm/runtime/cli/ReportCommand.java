package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.kube.KubeApi;
import dev.gpucomm.runtime.launch.EnvVars;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code gpucomm report}: prints a finished job's results table, from a local report directory or
 * from the job's results ConfigMap in the cluster this runs in.
 */
final class ReportCommand implements Command {
  @Override
  public String name() {
    return "report";
  }

  @Override
  public String summary() {
    return "print a job's results (a local report directory, or a job's results ConfigMap in a cluster)";
  }

  @Override
  public String synopsis() {
    return "DIR | JOB [--namespace NS]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value("namespace", "n", "NS", "namespace of JOB (default GPUCOMM_NAMESPACE)"));
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    List<String> targets = args.positional();
    if (targets.size() != 1) {
      throw new UsageException(
          "gpucomm report: name one report directory or job (see gpucomm report --help)");
    }
    String target = targets.getFirst();
    Path dir = Path.of(target);
    if (Files.isDirectory(dir)) {
      Path markdown = dir.resolve("report.md");
      if (!Files.exists(markdown)) {
        throw new UsageException("gpucomm report: " + dir + " has no report.md");
      }
      try {
        context.out().print(Files.readString(markdown));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + markdown + ": " + e.getMessage(), e);
      }
      return 0;
    }
    KubeApi api =
        KubeApi.fromEnvironment(context.env())
            .orElseThrow(
                () ->
                    new UsageException(
                        "gpucomm report: '"
                            + target
                            + "' is not a report directory, and reading job results needs a cluster"
                            + " (run inside one, or set "
                            + KubeApi.OVERRIDE_ENV
                            + "); outside one, use kubectl get configmap "
                            + target
                            + "-results -o jsonpath='{.data.report\\.md}'"));
    String namespace =
        args.value("namespace")
            .or(() -> java.util.Optional.ofNullable(context.env().get(EnvVars.NAMESPACE)))
            .orElseThrow(
                () ->
                    new UsageException(
                        "gpucomm report: --namespace is required for job " + target));
    String configMap = target + "-results";
    Map<String, String> data =
        api.configMapData(namespace, configMap)
            .orElseThrow(
                () ->
                    new UsageException(
                        "gpucomm report: no ConfigMap "
                            + namespace
                            + "/"
                            + configMap
                            + " (is the job's name right?)"));
    String markdown = data.get("report.md");
    if (markdown == null) {
      throw new UsageException(
          "gpucomm report: job "
              + target
              + " has no results yet ("
              + configMap
              + " has no report.md)");
    }
    context.out().print(markdown);
    return 0;
  }
}
