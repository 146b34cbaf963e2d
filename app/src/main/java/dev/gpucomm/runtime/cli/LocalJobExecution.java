package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.heuristic.MeasuredHeuristic;
import dev.gpucomm.runtime.heuristic.TuningCurve;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.launch.JavaCommand;
import dev.gpucomm.runtime.launch.LocalRun;
import dev.gpucomm.runtime.launch.RankSettings;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.launch.StagedReportDirectory;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** Runs a loaded job on this host and reports how it ended: shared by run, bench and tune. */
final class LocalJobExecution {
  private LocalJobExecution() {}

  /** Where a job's report goes unless --out says otherwise. */
  static Path defaultReportDir(LoadedJob job) {
    return Path.of("reports", job.name());
  }

  /**
   * Runs {@code job} as a whole job, its report in {@code out} or else the default directory, and
   * returns the exit code {@link #conclude} gives, or, for a run that succeeded, the verdict of its
   * spec.expect.
   */
  static int runToReport(
      String command,
      LoadedJob job,
      Optional<DeviceKind> deviceFlag,
      Optional<Path> out,
      boolean dumpIr,
      CliContext context) {
    Optional<Path> reportDir = Optional.of(out.orElse(defaultReportDir(job)));
    LocalRun.Result result =
        execute(command, job, deviceFlag, reportDir, RankMode.JOB, dumpIr, context);
    int exitCode = conclude(command, result, context);
    if (exitCode != 0 || result.report().isEmpty()) {
      return exitCode;
    }
    return LocalExpectations.judge(command, job, result.report().get(), context);
  }

  static LocalRun.Result execute(
      String command,
      LoadedJob job,
      Optional<DeviceKind> deviceFlag,
      Optional<Path> reportDir,
      RankMode mode,
      boolean dumpIr,
      CliContext context) {
    reportDir.ifPresent(dir -> requireReportTarget(command, dir));
    reportDir.ifPresent(
        dir ->
            tuningRef(job)
                .ifPresent(
                    table ->
                        requireOutsideReport(command, dir, tuningRefName(command, job), table)));
    Optional<TuningTable> tuningTable = readTuningTable(command, job);
    RankSettings.requireKnownSwitches(context.rankEnvironment());
    DeviceBackends backends = new DeviceBackends();
    DeviceKind device = new DeviceChoice(backends, context.err()).resolve(command, deviceFlag, job);
    backends.requireValidSettings(device, context.rankEnvironment());
    tuningTable.ifPresent(
        table ->
            requireBenchmarksCurve(
                command, job, table, modelHere(device, backends.deviceName(device, 0))));
    LocalRun run =
        new LocalRun(
            JavaCommand.ofCurrentJvm(context.env()), context.rankEnvironment(), context.out());
    return run.run(new LocalRun.Request(job, device, reportDir, mode, dumpIr, context.progress()));
  }

  /** Refuses, before anything runs, a report directory that would replace the user's files. */
  static void requireReportTarget(String command, Path dir) {
    StagedReportDirectory.refusal(dir)
        .ifPresent(
            problem -> {
              throw new UsageException(
                  "gpucomm " + command + ": report directory '" + dir + "' (--out) " + problem);
            });
  }

  /**
   * Refuses an existing input file inside the report directory: the new report replaces that
   * directory whole, and the file with it (a tuning table read from an earlier tune report, say).
   */
  static void requireOutsideReport(String command, Path reportDir, String input, Path file) {
    if (Files.exists(file) && canonical(file).startsWith(canonical(reportDir))) {
      throw new UsageException(
          "gpucomm %s: %s %s: lies in the report directory '%s' (--out), which the new report"
                  .formatted(command, input, file, reportDir)
              + " replaces; copy it elsewhere or name another --out");
    }
  }

  /** {@code path} with its links resolved where it exists, else absolute and normalised. */
  static Path canonical(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      return path.toAbsolutePath().normalize();
    }
  }

  /** The file of a measured heuristic's table, where the job names one. */
  private static Optional<Path> tuningRef(LoadedJob job) {
    Heuristic heuristic = job.job().getSpec().getHeuristic();
    if (heuristic == null
        || heuristic.getName() != HeuristicName.MEASURED
        || heuristic.getTuningRef() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Path.of(heuristic.getTuningRef()));
    } catch (InvalidPathException e) {
      return Optional.empty(); // said when the table is read
    }
  }

  /**
   * The table as its users know it: bench builds its job from flags, the others read a job file.
   */
  private static String tuningRefName(String command, LoadedJob job) {
    return command.equals("bench") ? "--tuning-ref" : job.source() + ": spec.heuristic.tuningRef";
  }

  /**
   * Reads a measured heuristic's table once here, where a bad one is a usage error in one line,
   * before every rank would read it and fail on its own.
   */
  private static Optional<TuningTable> readTuningTable(String command, LoadedJob job) {
    Heuristic heuristic = job.job().getSpec().getHeuristic();
    if (heuristic == null
        || heuristic.getName() != HeuristicName.MEASURED
        || heuristic.getTuningRef() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(TuningTableJson.read(Path.of(heuristic.getTuningRef())));
    } catch (IllegalArgumentException e) {
      throw tuningTableError(command, job, e);
    }
  }

  private static UsageException tuningTableError(
      String command, LoadedJob job, IllegalArgumentException e) {
    return new UsageException(
        "gpucomm " + command + ": " + tuningRefName(command, job) + ": " + e.getMessage(), e);
  }

  /**
   * The model rank 0 will name to the measured heuristic (it opens the first device of the host):
   * {@code cpu} on the CPU backend, the GPU's name where the backend reads it without opening the
   * GPU; empty where it cannot, and the ranks then check the model themselves.
   */
  private static Optional<String> modelHere(DeviceKind device, Optional<String> rankZerosDevice) {
    if (device == DeviceKind.CPU) {
      return Optional.of(TuningCurve.modelOf(device.wireName(), null));
    }
    return rankZerosDevice.map(name -> TuningCurve.modelOf(device.wireName(), name));
  }

  /**
   * A benchmark's sweep asks the table for its collective, world size and dtype (the job-level
   * {@link MeasuredHeuristic}) on rank 0's device model: a table without them is refused here too,
   * not by rank 0 after every rank has started. Where the model is not known here, only the
   * collective, world size and dtype are checked, and the ranks check the model.
   *
   * @throws UsageException naming the table and what it lacks
   */
  private static void requireBenchmarksCurve(
      String command, LoadedJob job, TuningTable table, Optional<String> model) {
    var spec = job.job().getSpec();
    if (spec.getWorkload() == null
        || spec.getWorkload().getKind() != WorkloadKind.BENCHMARK
        || spec.getWorkload().getBenchmark() == null
        || spec.getWorldSize() == null) {
      return;
    }
    BenchmarkSpec benchmark = spec.getWorkload().getBenchmark();
    Collective collective =
        Objects.requireNonNullElse(benchmark.getCollective(), CommJobDefaults.COLLECTIVE);
    DType dtype = Objects.requireNonNullElse(benchmark.getDtype(), CommJobDefaults.DTYPE);
    try {
      if (model.isPresent()) {
        new MeasuredHeuristic(table, collective, spec.getWorldSize(), dtype, model.get());
      } else {
        new MeasuredHeuristic(table, collective, spec.getWorldSize(), dtype);
      }
    } catch (IllegalArgumentException e) {
      throw tuningTableError(command, job, e);
    }
  }

  /** Prints where the report went, or the failing rank; returns the exit code. */
  static int conclude(String command, LocalRun.Result result, CliContext context) {
    if (result.supervision().exitCode() != 0) {
      if (context.progress() == ProgressStyle.LIVE) {
        context.err().println(); // end rank 0's progress line, which has no newline of its own
      }
      // a rank's own usage error already names the command (bench's jobs come from "gpucomm bench")
      String message =
          result.supervision().message().replace("failed: gpucomm " + command + ": ", "failed: ");
      context.err().println("gpucomm " + command + ": " + message);
      return result.supervision().exitCode();
    }
    result.report().ifPresent(dir -> context.out().println("Report: " + relative(dir)));
    return 0;
  }

  private static String relative(Path dir) {
    Path here = Path.of("").toAbsolutePath();
    return dir.startsWith(here) ? here.relativize(dir) + "/" : dir + "/";
  }
}
