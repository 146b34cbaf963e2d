package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.TuneWorkload;
import dev.gpucomm.runtime.files.FileProblem;
import dev.gpucomm.runtime.files.ReplacingFile;
import dev.gpucomm.runtime.heuristic.TuningCurve;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpucomm tune -f tune.yaml}: runs a tune job locally; its tuning table lands in the report
 * directory and, with {@code --table}, is merged into a table file (newer curves replace older).
 */
@Command(
    name = "tune",
    customSynopsis = "gpucomm tune -f FILE [--table TABLE.json] [--device cpu|cuda] [--out DIR]",
    description = "run a tune job locally and write the tuning table the measured heuristic reads",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n",
    sortOptions = false)
final class TuneCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(
      names = {"-f", "--file"},
      required = true,
      paramLabel = "FILE",
      description = "the tune job file (a CommJob with spec.workload.kind: tune)")
  Path file;

  @Option(
      names = "--table",
      paramLabel = "FILE",
      description = "merge the measured curve into this tuning table file")
  Optional<Path> table = Optional.empty();

  @Option(names = "--device", paramLabel = "DEVICE", description = "cpu or cuda")
  Optional<DeviceKind> device = Optional.empty();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "report directory (default reports/<job>)")
  Optional<Path> out = Optional.empty();

  TuneCommand(CliContext context) {
    this.context = context;
  }

  /**
   * The --table file must be an existing tuning table of the job's collective, or a new file, and
   * writable where it is: a table that cannot take the curve must not cost a whole sweep.
   */
  /**
   * The table is written after the run, beside a report directory made by then: a table that is
   * that directory, or above it, could never be written, and would cost a whole sweep.
   */
  private static void requireApartFromReport(Path reportDir, Path table) {
    Path report = LocalJobExecution.canonical(reportDir);
    if (report.startsWith(LocalJobExecution.canonical(table))) {
      throw new UsageException(
          "gpucomm tune: --table %s: is the report directory '%s' (--out) or a folder above it;"
                  .formatted(table, reportDir)
              + " name a file elsewhere");
    }
  }

  private static void requireMergeableTable(Path table, Collective collective) {
    if (table.toString().isBlank()) {
      throw new UsageException("gpucomm tune: --table needs a file name");
    }
    if (Files.isDirectory(table)) {
      throw new UsageException("gpucomm tune: --table " + table + ": is a directory");
    }
    if (Files.exists(table)) {
      TuningTable existing;
      try {
        existing = TuningTableJson.read(table);
      } catch (IllegalArgumentException e) {
        throw new UsageException("gpucomm tune: --table " + table + ": " + e.getMessage());
      }
      if (existing.collective() != collective) {
        throw new UsageException(
            "gpucomm tune: --table "
                + table
                + ": holds "
                + existing.collective().wireName()
                + " curves, and this job tunes "
                + collective.wireName());
      }
    }
    try {
      ReplacingFile.tryReplacing(table);
    } catch (IOException e) {
      throw new UsageException(
          "gpucomm tune: --table "
              + table
              + ": cannot be written ("
              + FileProblem.of(table, e)
              + ")");
    }
  }

  @Override
  public Integer call() {
    LoadedJob job = new JobLoader().load(file);
    WorkloadKind kind = job.job().getSpec().getWorkload().getKind();
    if (kind != WorkloadKind.TUNE) {
      throw new UsageException(
          job.source()
              + ": spec.workload.kind: gpucomm tune needs a tune job, this is "
              + kind
              + " (use gpucomm run)");
    }
    Path reportDir = out.orElse(LocalJobExecution.defaultReportDir(job));
    Optional<Path> tableFile = table;
    // Checked before the run: a table that cannot take the curve must not cost a whole sweep.
    Collective collective = job.job().getSpec().getWorkload().getTune().getCollective();
    tableFile.ifPresent(
        table -> LocalJobExecution.requireOutsideReport("tune", reportDir, "--table", table));
    tableFile.ifPresent(table -> requireApartFromReport(reportDir, table));
    tableFile.ifPresent(table -> requireMergeableTable(table, collective));
    LocalRun.Result result =
        LocalJobExecution.execute(
            "tune", job, device, Optional.of(reportDir), RankMode.JOB, false, context);
    int exit = LocalJobExecution.conclude("tune", result, context);
    if (exit != 0) {
      return exit;
    }
    Path produced = result.report().orElseThrow().resolve(TuneWorkload.TABLE_FILE);
    if (tableFile.isPresent()) {
      try {
        // a table every curve of which older runtimes read becomes one they refuse: say so
        boolean olderRuntimesReadIt =
            Files.exists(tableFile.get())
                && TuningTableJson.read(tableFile.get()).curves().stream()
                    .noneMatch(TuningCurve::deviceRecorded);
        TuningTable written =
            TuningTableJson.writeMerged(TuningTableJson.read(produced), tableFile.get());
        if (olderRuntimesReadIt
            && written.curves().stream().anyMatch(TuningCurve::deviceRecorded)) {
          context
              .err()
              .println(
                  "gpucomm tune: note: --table "
                      + tableFile.get()
                      + " now records the device model of its new curve (schema 2), which older"
                      + " gpucomm versions do not read; keep a copy for them");
        }
      } catch (IllegalArgumentException e) {
        throw new UsageException(
            "gpucomm tune: --table " + tableFile.get() + ": " + e.getMessage());
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot write " + tableFile.get() + ": " + FileProblem.of(tableFile.get(), e), e);
      }
      produced = tableFile.get();
    }
    context
        .out()
        .println(
            "Tuning table: "
                + produced
                + " (use it as spec.heuristic: {name: measured, tuningRef: "
                + produced
                + "})");
    return 0;
  }
}
