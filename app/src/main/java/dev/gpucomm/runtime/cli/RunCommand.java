package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpucomm run -f job.yaml}: a CommJob on this host, without Kubernetes. */
@Command(
    name = "run",
    customSynopsis = "gpucomm run -f FILE [--device cpu|cuda] [--out DIR] [--dump-ir]",
    description =
        "run a CommJob (YAML or JSON) on this host, all ranks local; print the results, write the"
            + " report, and check the job's spec.expect against it (exit 5 when not met)",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n",
    footerHeading = ReportColumnsHelp.HEADING,
    footer = ReportColumnsHelp.COLUMNS,
    sortOptions = false)
final class RunCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(
      names = {"-f", "--file"},
      required = true,
      paramLabel = "FILE",
      description = "the CommJob file")
  Path file;

  @Option(
      names = "--device",
      paramLabel = "DEVICE",
      description =
          "cpu or cuda; default: spec.device if set, else cuda when there is a GPU for every"
              + " rank, else cpu")
  Optional<DeviceKind> device = Optional.empty();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "report directory (default reports/<job>)")
  Optional<Path> out = Optional.empty();

  @Option(
      names = "--dump-ir",
      description = "print host-IR programs before and after each pass (program jobs only)")
  boolean dumpIr;

  RunCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    LoadedJob job = new JobLoader().load(file);
    WorkloadKind kind = job.job().getSpec().getWorkload().getKind();
    if (dumpIr && kind != WorkloadKind.PROGRAM) {
      // said rather than ignored: the user is looking for IR this job does not have
      throw new UsageException(
          "gpucomm run: --dump-ir: "
              + job.source()
              + " has no host-IR program (spec.workload.kind is "
              + kind.wireName()
              + ")");
    }
    return LocalJobExecution.runToReport("run", job, device, out, dumpIr, context);
  }
}
