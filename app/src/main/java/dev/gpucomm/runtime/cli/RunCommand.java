package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.nio.file.Path;
import java.util.List;

/** {@code gpucomm run -f job.yaml}: a CommJob on this host, without Kubernetes. */
final class RunCommand implements Command {
  @Override
  public String name() {
    return "run";
  }

  @Override
  public String summary() {
    return "run a CommJob on this host (all ranks local), print the results, write the report";
  }

  @Override
  public String synopsis() {
    return "-f FILE [--device cpu|cuda] [--out DIR] [--dump-ir]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value("file", "f", "FILE", "the CommJob (YAML or JSON)"),
        Option.value(
            "device",
            "DEVICE",
            "cpu or cuda; default: spec.device if set, else cuda when there are GPUs, else cpu"),
        Option.value("out", "DIR", "report directory (default reports/<job>)"),
        Option.flag("dump-ir", "print host-IR programs before and after each pass"));
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    args.noPositional();
    Path file = Path.of(args.required("file", "the CommJob file"));
    LoadedJob job = new JobLoader().load(file);
    LocalRun.Result result =
        LocalJobExecution.execute(
            name(),
            job,
            args.value("device"),
            java.util.Optional.of(args.path("out").orElse(LocalJobExecution.defaultReportDir(job))),
            RankMode.JOB,
            args.flag("dump-ir"),
            context);
    return LocalJobExecution.conclude(name(), result, context);
  }
}
