package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.heuristic.TuningCurve;
import dev.gpucomm.runtime.heuristic.TuningSample;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.launch.MemoryCheck;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Inputs meant to hurt (endless files, pipes, escape sequences) end in one line and exit 2. */
class HostileInputCliTest {
  @TempDir Path dir;

  private static Path namedPipe(Path path) throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    return path;
  }

  private static void assertUsageError(CliRun run, String line) {
    assertThat(run.exitCode()).as("exit code of: " + run.err()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(line + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  // a writer blocked opening the pipe ignores interrupts: a timeout of another thread still fails
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aTerminationLogThatIsANamedPipeDoesNotHoldTheLauncher() throws Exception {
    Path pipe = namedPipe(dir.resolve("termination-log"));

    CliRun run = CliRun.of(Map.of("GPUCOMM_TERMINATION_LOG", pipe.toString()), "launch");

    assertUsageError(
        run, "gpucomm launch: GPUCOMM_WORLD_SIZE: required (set by the gpucomm operator)");
    assertThat(Files.isRegularFile(pipe)).as("nothing took the pipe's place").isFalse();
  }

  @Test
  // a writer blocked opening the pipe ignores interrupts: a timeout of another thread still fails
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRankWhoseErrorFileIsANamedPipeSaysItsErrorOnStandardError() throws Exception {
    Path pipe = namedPipe(dir.resolve("rank-0.error"));

    CliRun run =
        CliRun.of(
            Map.of(
                "WORLD_SIZE", "2",
                "RANK", "0",
                "GPUCOMM_RENDEZVOUS", "store",
                "GPUCOMM_ERROR_FILE", pipe.toString()),
            "rank");

    assertUsageError(run, "gpucomm rank: GPUCOMM_RENDEZVOUS: 'store' is not host:port");
  }

  @Test
  void anEndlessTuningTableIsRefusedBeforeAnyRankStarts() {
    assertUsageError(
        CliRun.of(
            "bench", "--device", "cpu", "--heuristic", "measured", "--tuning-ref", "/dev/zero"),
        "gpucomm bench: --tuning-ref: tuning table /dev/zero: not a regular file (a character"
            + " device)");
  }

  @Test
  void aSweepRefusedAfterItsSizesWereChosenIsStillOneLine() {
    // 8 B per rank is no whole vector: a sweep that ran would say so after its table
    assertUsageError(
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--world",
            "2",
            "-b",
            "8",
            "-e",
            "64",
            "-f",
            "2",
            "--heuristic",
            "measured",
            "--tuning-ref",
            "/dev/zero"),
        "gpucomm bench: --tuning-ref: tuning table /dev/zero: not a regular file (a character"
            + " device)");
  }

  @Test
  void aWorldOfManyLocalCpuRanksIsRefusedForTheHostsCpusBeforeAnyStarts() {
    // 60 rank JVMs spinning on two CPUs stall the host long before its memory runs out
    int cpus = Runtime.getRuntime().availableProcessors();
    int most = Math.max(8, 4 * cpus);
    int world = most + 1;
    Path out = dir.resolve("reports").resolve("wide");

    CliRun run =
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--world",
            String.valueOf(world),
            "--sizes",
            "16",
            "--out",
            out.toString());

    assertUsageError(
        run,
        "gpucomm bench: --world: %d ranks of the cpu device would share this host's %s;"
                .formatted(world, cpus == 1 ? "1 CPU" : cpus + " CPUs")
            + " a local run takes at most %d (4 a CPU, at least 8)".formatted(most));
    assertThat(dir.resolve("reports")).doesNotExist();
  }

  /** A job whose measured heuristic reads its table from {@code tuningRef}. */
  private Path jobWithTuningTable(Path tuningRef) throws Exception {
    return Files.writeString(
        dir.resolve("measured.yaml"),
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: measured}
        spec:
          worldSize: 2
          device: cpu
          heuristic: {name: measured, tuningRef: TABLE}
          workload: {kind: benchmark, benchmark: {sizes: [4096]}}
        """
            .replace("TABLE", tuningRef.toString()));
  }

  @Test
  void anEndlessTuningTableNamedByAJobIsRefusedInOneLineNamingBoth() throws Exception {
    Path job = jobWithTuningTable(Path.of("/dev/zero"));

    assertUsageError(
        CliRun.of("run", "-f", job.toString()),
        "gpucomm run: "
            + job
            + ": spec.heuristic.tuningRef: tuning table /dev/zero: not a regular file (a"
            + " character device)");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aNamedPipeAsAJobsTuningTableIsRefusedAtOnce() throws Exception {
    Path pipe = dir.resolve("tuning.json");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    Path job = jobWithTuningTable(pipe);

    assertUsageError(
        CliRun.of("run", "-f", job.toString()),
        "gpucomm run: "
            + job
            + ": spec.heuristic.tuningRef: tuning table "
            + pipe
            + ": not a regular file (a named pipe)");
  }

  /** A small all-reduce tune job on the CPU, written to the test's directory. */
  private Path tuneJob() throws Exception {
    Path job = dir.resolve("tune.yaml");
    Files.writeString(
        job,
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: t}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          workload:
            kind: tune
            tune: {sizes: [4096, 8192], algorithms: [oneshot, ring]}
        """);
    return job;
  }

  @Test
  void anEndlessTableToMergeIntoIsRefused() throws Exception {
    Path job = tuneJob();

    assertUsageError(
        CliRun.of("tune", "-f", job.toString(), "--table", "/dev/zero"),
        "gpucomm tune: --table /dev/zero: tuning table /dev/zero: not a regular file (a character"
            + " device)");
  }

  /** A tuning table file named {@code name} of one measured point of {@code collective}. */
  private Path oneSampleTable(String name, Collective collective) throws Exception {
    Path table = dir.resolve(name + ".json");
    TuningTableJson.write(
        TuningTable.fromMeasurements(
            name, collective, List.of(new TuningSample(2, DType.BF16, 4096, Algorithm.NCCL, 3.0))),
        table);
    return table;
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aTableWhereNoFileCanBeWrittenIsRefusedBeforeTheSweep() throws Exception {
    // permission bits pass for root on /proc: the folder is tried for real before the sweep
    Path job = tuneJob();
    Path out = dir.resolve("tuned");

    assertUsageError(
        CliRun.of(
            "tune", "-f", job.toString(), "--table", "/proc/gpucomm.json", "--out", out.toString()),
        "gpucomm tune: --table /proc/gpucomm.json: cannot be written (no such file)");
    assertThat(out).as("no sweep ran").doesNotExist();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aTableOfAnotherCollectiveIsRefusedBeforeTheSweepAndKept() throws Exception {
    Path job = tuneJob();
    Path table = oneSampleTable("ag", Collective.ALLGATHER);
    String before = Files.readString(table);

    Path out = dir.resolve("tuned");

    assertUsageError(
        CliRun.of(
            "tune", "-f", job.toString(), "--table", table.toString(), "--out", out.toString()),
        "gpucomm tune: --table "
            + table
            + ": holds allgather curves, and this job tunes allreduce");
    assertThat(table).hasContent(before);
    assertThat(out).as("no sweep ran").doesNotExist();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aMeasuredHeuristicWhoseTableMeasuredAnotherCollectiveIsRefusedNamingBoth() throws Exception {
    Path table = oneSampleTable("ar", Collective.ALLREDUCE);

    CliRun run =
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--world",
            "2",
            "--collective",
            "allgather",
            "--sizes",
            "4K",
            "--heuristic",
            "measured",
            "--tuning-ref",
            table.toString());

    // refused before any rank starts, as the ranks would refuse it
    assertUsageError(
        run,
        "gpucomm bench: --tuning-ref: tuning table ar measured allreduce, not allgather: tune"
            + " allgather for this job, or name another heuristic");
  }

  @Test
  void aMeasuredHeuristicWhoseTableLacksTheJobsWorldIsRefusedBeforeTheRanksStart()
      throws Exception {
    Path job =
        Files.writeString(
            dir.resolve("world4.yaml"),
            Files.readString(jobWithTuningTable(oneSampleTable("ar", Collective.ALLREDUCE)))
                .replace("worldSize: 2", "worldSize: 4"));

    assertUsageError(
        CliRun.of("run", "-f", job.toString()),
        "gpucomm run: "
            + job
            + ": spec.heuristic.tuningRef: tuning table ar has no curve for world size 4 and dtype"
            + " bf16 (it has world 2 bf16); run gpucomm tune for that world size and dtype");
  }

  @Test
  void aTableTunedOnAGpuModelIsRefusedForACpuJobBeforeTheRanksStart() throws Exception {
    Path table = dir.resolve("h200.json");
    TuningTableJson.write(
        TuningTable.fromMeasurements(
            "h200",
            Collective.ALLREDUCE,
            List.of(new TuningSample(2, DType.BF16, 4096, Algorithm.NCCL, 3.0, 2, "NVIDIA H200"))),
        table);
    Path job = jobWithTuningTable(table);

    assertUsageError(
        CliRun.of("run", "-f", job.toString()),
        "gpucomm run: "
            + job
            + ": spec.heuristic.tuningRef: tuning table h200 has no curve measured on cpu (it"
            + " measured NVIDIA H200); run gpucomm tune on this hardware, or name another"
            + " heuristic");
  }

  @Test
  void mergingAModelsCurveIntoATableOlderRuntimesReadSaysTheyNoLongerReadIt() throws Exception {
    Path table = oneSampleTable("shared", Collective.ALLREDUCE);
    Path out = dir.resolve("tuned");

    CliRun run =
        CliRun.of(
            "tune",
            "-f",
            tuneJob().toString(),
            "--table",
            table.toString(),
            "--out",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err())
        .contains(
            "gpucomm tune: note: --table "
                + table
                + " now records the device model of its new curve (schema 2), which older gpucomm"
                + " versions do not read; keep a copy for them");
    assertThat(TuningTableJson.read(table).curves())
        .extracting(TuningCurve::device)
        .containsExactly(null, "cpu");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aNamedPipeWithNoWriterIsRefusedAtOnce() throws Exception {
    Path pipe = namedPipe(dir.resolve("job.yaml"));

    assertUsageError(
        CliRun.of("run", "-f", pipe.toString()),
        "gpucomm run: " + pipe + ": not a regular file (a named pipe)");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aReportDirectoryWhoseReportIsANamedPipeIsRefusedAtOnce() throws Exception {
    Path report = Files.createDirectories(dir.resolve("reports/ar"));
    Path pipe = namedPipe(report.resolve("report.json"));

    assertUsageError(
        CliRun.of("report", report.toString(), "--format", "json"),
        "gpucomm report: " + pipe + ": not a regular file (a named pipe)");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aReportThatLinksToAnEndlessDeviceIsRefusedWithoutReadingIt() throws Exception {
    assumeTrue(Files.exists(Path.of("/dev/zero")), "/dev/zero");
    Path report = Files.createDirectories(dir.resolve("reports/ar"));
    Path link = Files.createSymbolicLink(report.resolve("report.json"), Path.of("/dev/zero"));

    assertUsageError(
        CliRun.of("report", report.toString(), "--format", "json"),
        "gpucomm report: " + link + ": not a regular file (a character device)");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aHugeReportFileIsRefusedWithoutReadingIt() throws Exception {
    Path report = Files.createDirectories(dir.resolve("reports/ar"));
    Path huge = report.resolve("report.json");
    try (var file =
        FileChannel.open(huge, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      file.write(ByteBuffer.wrap(new byte[] {'}'}), 3L << 30); // sparse, 3 GiB
    }

    assertUsageError(
        CliRun.of("report", report.toString(), "--format", "json"),
        "gpucomm report: " + huge + ": larger than 16 MiB");
  }

  @Test
  void aDirectoryWhereTheReportShouldBeIsRefused() throws Exception {
    Path report = Files.createDirectories(dir.resolve("reports/ar"));
    Path inner = Files.createDirectories(report.resolve("report.md"));

    assertUsageError(
        CliRun.of("report", report.toString()), "gpucomm report: " + inner + ": is a directory");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aKubeconfigThatIsAPipeOrADeviceIsRefusedBeforeTheClientReadsIt() throws Exception {
    Path pipe = namedPipe(dir.resolve("kubeconfig"));

    assertUsageError(
        CliRun.of("report", "ar-tp2", "--kubeconfig", pipe.toString()),
        "gpucomm report: --kubeconfig " + pipe + ": not a regular file (a named pipe)");
    assertUsageError(
        CliRun.of("report", "ar-tp2", "--kubeconfig", "/dev/zero"),
        "gpucomm report: --kubeconfig /dev/zero: not a regular file (a character device)");
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aSweepTooLargeForThisHostIsRefusedWithTheNumbersBeforeAnyRankAllocates() throws Exception {
    Path job =
        Files.writeString(
            dir.resolve("huge.yaml"),
            """
            apiVersion: gpucomm.dev/v1alpha1
            kind: CommJob
            metadata: {name: huge}
            spec:
              worldSize: 8
              device: cpu
              workload:
                kind: benchmark
                benchmark:
                  tokens: [1000000]
                  hiddenSize: 4096
                  dtype: bf16
                  algorithms: [ring]
            """);
    // 8 ranks, each with input and output of 8,192,000,000 bytes on its device and on the host
    long needed = 8 * 4 * 8_192_000_000L;
    OptionalLong available = MemoryCheck.hostAvailableBytes();
    // where the host's memory is unknown, or this much is free, the check rightly lets it run
    assumeTrue(available.isPresent() && available.getAsLong() < needed, "less memory than needed");
    Path out = dir.resolve("reports").resolve("huge");

    CliRun run = CliRun.of("run", "-f", job.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    // the launcher's words: a rank that had started would be named in them
    assertThat(run.err())
        .matches(
            Pattern.quote(
                    "gpucomm run: "
                        + job
                        + ": the sweep's largest message (7.63 GiB per rank) needs 30.52 GiB of"
                        + " host memory per rank, 244.14 GiB for the 8 ranks on this host, and ")
                + "[0-9.]+ [KMG]iB is available"
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();
    assertThat(dir.resolve("reports")).doesNotExist();
  }

  @Test
  void escapeSequencesInAJobNeverReachTheTerminal() throws Exception {
    Path job = dir.resolve("job.yaml");
    Files.writeString(
        job,
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: "\\e[2J\\e[31mgotcha"}
        spec:
          worldSize: 2
          workload: {kind: benchmark, benchmark: {sizes: [4096]}}
        """);

    CliRun run = CliRun.of("run", "-f", job.toString(), "--device", "cpu");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .doesNotContain("\u001b")
        .startsWith("gpucomm run: " + job + ": metadata.name: '\\x1b[2J\\x1b[31mgotcha' is not");
  }

  @Test
  void aHugeArgumentIsEchoedShort() {
    String name = "x".repeat(500_000);

    CliRun run = CliRun.of("bench", "--device", "cpu", "--name", name);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).hasSizeLessThan(1000).contains("(500000 characters)");
  }

  @Test
  void anEscapeSequenceInAnUnknownCommandIsEscaped() {
    CliRun run = CliRun.of("\u001b[2Jrun");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).doesNotContain("\u001b").contains("\\x1b[2Jrun");
  }
}
