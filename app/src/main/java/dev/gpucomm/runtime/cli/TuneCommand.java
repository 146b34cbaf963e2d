package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.TuneWorkload;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code gpucomm tune -f tune.yaml}: runs a tune job locally; its tuning table lands in the report
 * directory and, with {@code --table}, is merged into a table file (newer curves replace older).
 */
final class TuneCommand implements Command {
  @Override
  public String name() {
    return "tune";
  }

  @Override
  public String summary() {
    return "run a tune job locally and write the tuning table the measured heuristic reads";
  }

  @Override
  public String synopsis() {
    return "-f FILE [--table TABLE.json] [--device cpu|cuda] [--out DIR]";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.value("file", "f", "FILE", "a CommJob with spec.workload.kind: tune"),
        Option.value("table", "FILE", "merge the measured curve into this tuning table file"),
        Option.value("device", "DEVICE", "cpu or cuda"),
        Option.value("out", "DIR", "report directory (default reports/<job>)"));
  }

  /** The --table file must be an existing tuning table, or a new file in a writable directory. */
  private static void requireMergeableTable(Path table) {
    if (Files.isDirectory(table)) {
      throw new UsageException("gpucomm tune: --table " + table + ": is a directory");
    }
    if (Files.exists(table)) {
      try {
        TuningTableJson.read(table);
      } catch (IllegalArgumentException e) {
        throw new UsageException("gpucomm tune: --table " + table + ": " + e.getMessage());
      }
      return;
    }
    Path parent = table.toAbsolutePath().normalize().getParent();
    if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
      throw new UsageException(
          "gpucomm tune: --table "
              + table
              + ": its directory "
              + parent
              + " does not exist or is not writable");
    }
  }

  @Override
  public int run(ParsedArgs args, CliContext context) {
    args.noPositional();
    LoadedJob job = new JobLoader().load(Path.of(args.required("file", "the tune job")));
    WorkloadKind kind = job.job().getSpec().getWorkload().getKind();
    if (kind != WorkloadKind.TUNE) {
      throw new UsageException(
          job.source()
              + ": spec.workload.kind: gpucomm tune needs a tune job, this is "
              + kind
              + " (use gpucomm run)");
    }
    Path reportDir = args.path("out").orElse(LocalJobExecution.defaultReportDir(job));
    Optional<Path> tableFile = args.path("table");
    // Checked before the run: a table that cannot take the curve must not cost a whole sweep.
    tableFile.ifPresent(TuneCommand::requireMergeableTable);
    LocalRun.Result result =
        LocalJobExecution.execute(
            name(),
            job,
            args.value("device"),
            Optional.of(reportDir),
            RankMode.JOB,
            false,
            context);
    int exit = LocalJobExecution.conclude(name(), result, context);
    if (exit != 0) {
      return exit;
    }
    Path produced = result.report().orElseThrow().resolve(TuneWorkload.TABLE_FILE);
    if (tableFile.isPresent()) {
      try {
        TuningTableJson.writeMerged(TuningTableJson.read(produced), tableFile.get());
      } catch (IllegalArgumentException e) {
        throw new UsageException(
            "gpucomm tune: --table " + tableFile.get() + ": " + e.getMessage());
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot write " + tableFile.get() + ": " + e.getMessage(), e);
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
