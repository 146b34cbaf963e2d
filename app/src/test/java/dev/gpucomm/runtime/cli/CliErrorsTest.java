package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Usage errors: exit code 2, one line on stderr, no stack trace, nothing written. */
class CliErrorsTest {
  private static final String VALID =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: cli-job}
      spec:
        worldSize: 2
        ranksPerPod: 2
        workload:
          kind: benchmark
          benchmark: {sizes: [4096], dtype: bf16}
      """;

  @TempDir Path dir;

  private static void assertUsageError(CliRun run, String line) {
    assertThat(run.exitCode()).as("exit code of: " + run.err()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(line + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void noCommand() {
    assertUsageError(CliRun.of(), "gpucomm: name a command (see gpucomm --help)");
  }

  @Test
  void unknownCommand() {
    assertUsageError(CliRun.of("launhc"), "gpucomm: unknown command 'launhc' (see gpucomm --help)");
  }

  @Test
  void helpForAnUnknownCommandOrVersionWithArgumentsIsAMistake() {
    assertUsageError(
        CliRun.of("help", "frob"), "gpucomm: unknown command 'frob' (see gpucomm --help)");
    assertUsageError(
        CliRun.of("help", "run", "extra"),
        "gpucomm help: unexpected argument 'extra' (see gpucomm help --help)");
    assertUsageError(CliRun.of("--version", "extra"), "gpucomm: --version takes no arguments");
  }

  @Test
  void unknownOption() {
    assertUsageError(
        CliRun.of("run", "-f", "x.yaml", "--devcie", "cpu"),
        "gpucomm run: unknown option '--devcie' (see gpucomm run --help)");
  }

  @Test
  void runWithoutAFile() {
    assertUsageError(CliRun.of("run"), "gpucomm run: --file is required (the CommJob file)");
  }

  @Test
  void runWithAMissingFile() {
    Path missing = dir.resolve("missing.yaml");
    assertUsageError(
        CliRun.of("run", "-f", missing.toString()), "gpucomm run: " + missing + ": no such file");
  }

  @Test
  void anEmptyJobFileNameIsSaid() {
    assertUsageError(CliRun.of("run", "-f", ""), "gpucomm run: job file '': the name is empty");
  }

  @Test
  void anEndlessOrHugeJobFileIsRefusedInOneLine() throws Exception {
    assertUsageError(
        CliRun.of("run", "-f", "/dev/zero"),
        "gpucomm run: /dev/zero: not a regular file (a character device)");
    Path big = dir.resolve("big.yaml");
    try (var file =
        FileChannel.open(big, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      file.write(ByteBuffer.wrap(new byte[] {'#'}), 3L << 30); // sparse, 3 GiB
    }
    assertUsageError(
        CliRun.of("run", "-f", big.toString()),
        "gpucomm run: " + big + ": larger than 1 MiB; a CommJob file is a few kilobytes");
  }

  @Test
  void benchSaysWhichOfItsFlagsIsWrong() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--sizes", "1000"),
        "gpucomm bench: --sizes: 1000 bytes is not a multiple of 16");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--name", "Bad_Name"),
        "gpucomm bench: --name: 'Bad_Name' is not a valid job name (lower-case letters, digits"
            + " and '-', starting with a letter and ending with a letter or digit: it also names"
            + " the job's headless Service)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--world", "4", "--ranks-per-pod", "3"),
        "gpucomm bench: --world: 4 is not a multiple of --ranks-per-pod (3)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--collective", "broadcast", "--in-place"),
        "gpucomm bench: --in-place: applies to allreduce only (broadcast's output is not the shape"
            + " of its input)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--in-place", "--algorithms", "nccl,twoshot"),
        "gpucomm bench: --algorithms: twoshot does not run in place (a rank's peers read its input"
            + " while it would overwrite it); with inPlace use nccl, ring or auto");
  }

  @Test
  void benchSaysWhatAFusedPatternNeedsByFlag() {
    assertUsageError(
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--tokens",
            "32",
            "--pattern",
            "allreduceResidualRmsNormFp8"),
        "gpucomm bench: --fp8-scale: required by pattern allreduceResidualRmsNormFp8");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--tokens", "32", "--fp8-scale", "0.5"),
        "gpucomm bench: --fp8-scale: applies to pattern allreduceResidualRmsNormFp8 only, not"
            + " allreduce");
    assertUsageError(
        CliRun.of(
            "bench", "--device", "cpu", "--sizes", "4K", "--pattern", "allreduceResidualRmsNorm"),
        "gpucomm bench: --sizes: 4096 bytes is not a whole number of tokens of hiddenSize 8192"
            + " bf16 (16384 bytes each), which RMSNorm needs");
    assertUsageError(
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--collective",
            "allgather",
            "--pattern",
            "allreduceResidualRmsNorm"),
        "gpucomm bench: --pattern: allreduceResidualRmsNorm applies to allreduce only, not"
            + " allgather");
  }

  @Test
  void benchFlagsOfAnotherHeuristicAreRefusedByName() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--fixed", "ring"),
        "gpucomm bench: --fixed: is for --heuristic fixed");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--heuristic", "vllm", "--tuning-ref", "t.json"),
        "gpucomm bench: --tuning-ref: is for --heuristic measured");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--heuristic", "fixed"),
        "gpucomm bench: --heuristic: fixed needs --fixed ALGO");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--heuristic", "measured"),
        "gpucomm bench: --heuristic: measured needs --tuning-ref FILE (a table from gpucomm tune)");
  }

  @Test
  void aTuningTableInsideTheReportDirectoryTheRunReplacesIsRefused() throws Exception {
    // an earlier tune report, its table read by the bench whose report would replace it
    Path report = Files.createDirectories(dir.resolve("reports/tune"));
    Files.writeString(report.resolve("report.json"), "{}");
    Path table = Files.writeString(report.resolve("tuning.json"), "{}");

    CliRun bench =
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--heuristic",
            "measured",
            "--tuning-ref",
            table.toString(),
            "--out",
            report.toString());

    assertThat(bench.exitCode()).as(bench.err()).isEqualTo(2);
    assertThat(bench.err())
        .startsWith("gpucomm bench: --tuning-ref " + table + ": lies in the report directory");
    assertThat(table).hasContent("{}");
  }

  @Test
  void anOptionWithoutItsValue() {
    assertUsageError(CliRun.of("run", "-f"), "gpucomm run: -f needs a value (FILE)");
  }

  @Test
  void aBadJobIsNamedAndNoReportIsWritten() throws Exception {
    Path job =
        Files.writeString(dir.resolve("bad.yaml"), VALID.replace("dtype: bf16", "dtype: bf8"));
    Path out = dir.resolve("reports").resolve("cli-job");

    CliRun run = CliRun.of("run", "-f", job.toString(), "--out", out.toString());

    assertUsageError(
        run,
        "gpucomm run: "
            + job
            + ": spec.workload.benchmark.dtype: unknown value 'bf8' (expected bf16, fp16, fp32)");
    assertThat(dir.resolve("reports")).doesNotExist();
  }

  @Test
  void aPeerMemoryAlgorithmAcrossPodsIsRefusedBeforeAnyRankStarts() throws Exception {
    // the local run plays two pods of one rank, and peer memory reaches the ranks of one pod only
    Path job =
        Files.writeString(
            dir.resolve("pods.yaml"),
            VALID
                .replace("ranksPerPod: 2", "ranksPerPod: 1")
                .replace("dtype: bf16}", "dtype: bf16, algorithms: [oneshot]}"));
    Path out = dir.resolve("r");

    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--out", out.toString()),
        "gpucomm run: "
            + job
            + ": spec.workload.benchmark.algorithms[0]: oneshot exchanges buffers among the ranks"
            + " of one pod, but spec.worldSize (2) spans 2 pods of spec.ranksPerPod (1); use nccl"
            + " or auto");
    assertThat(out).doesNotExist();
  }

  @Test
  void aRankSwitchOfUnknownValueIsRefusedBeforeAnyRankStarts() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    Path out = dir.resolve("r");

    assertUsageError(
        CliRun.of(
            Map.of("GPUCOMM_CPU_VECTOR", "0"),
            "run",
            "-f",
            job.toString(),
            "--out",
            out.toString()),
        "gpucomm run: GPUCOMM_CPU_VECTOR: unknown value '0' (expected on, off)");
    assertUsageError(
        CliRun.of(
            Map.of("GPUCOMM_CPU_BIND", "numa"),
            "run",
            "-f",
            job.toString(),
            "--out",
            out.toString()),
        "gpucomm run: GPUCOMM_CPU_BIND: unknown value 'numa' (expected core, none)");
    assertThat(out).doesNotExist();
  }

  @Test
  void aDebugSwitchOfUnknownValueIsRefusedNotTakenForOff() {
    assertUsageError(
        CliRun.of(Map.of("GPUCOMM_DEBUG", "yes"), "run", "-f", "job.yaml"),
        "gpucomm: GPUCOMM_DEBUG: unknown value 'yes' (expected 1 or 0)");
  }

  @Test
  void dumpIrOnAJobWithoutAProgramIsSaidNotIgnored() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);

    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--dump-ir", "--out", dir.resolve("r").toString()),
        "gpucomm run: --dump-ir: "
            + job
            + " has no host-IR program (spec.workload.kind is benchmark)");
    assertThat(dir.resolve("r")).doesNotExist();
  }

  @Test
  void aReportNeverReplacesADirectoryOfOtherFiles() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    Path mine = Files.createDirectories(dir.resolve("mine"));
    Files.writeString(mine.resolve("notes.txt"), "keep me");

    CliRun run = CliRun.of("run", "-f", job.toString(), "--out", mine.toString());

    assertUsageError(
        run,
        "gpucomm run: report directory '"
            + mine
            + "' (--out) holds files that are not a gpucomm report (no report.json); name a new"
            + " or empty directory");
    assertThat(mine.resolve("notes.txt")).hasContent("keep me");
    assertThat(dir).isDirectoryNotContaining("glob:**/.mine.partial-*");
  }

  @Test
  void anEmptyReportDirectoryThatCannotBeRenamedIsRefusedBeforeTheRun() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    Path fixed = Files.createDirectory(dir.resolve("fixed"));
    // Immutable: renaming it fails even for root, to whom permission bits do not apply, as a
    // mount point's rename does; where chattr is refused (no CAP_LINUX_IMMUTABLE, a file system
    // without the flag) the test is skipped rather than passed.
    assumeTrue(command("chattr", "+i", fixed.toString()) == 0, "chattr +i " + fixed);
    try {
      CliRun run =
          CliRun.of("run", "-f", job.toString(), "--device", "cpu", "--out", fixed.toString());

      assertUsageError(
          run,
          "gpucomm run: report directory '"
              + fixed
              + "' (--out) cannot be replaced by a new report (Operation not permitted)");
      assertThat(fixed).isEmptyDirectory();
      try (var entries = Files.list(dir)) {
        assertThat(entries).as("no probe or staging left").containsExactlyInAnyOrder(job, fixed);
      }
    } finally {
      command("chattr", "-i", fixed.toString());
    }
  }

  private static int command(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getInputStream().transferTo(OutputStream.nullOutputStream());
    return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  @Test
  void aReportNeverReplacesAFile() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    Path file = Files.writeString(dir.resolve("keep.txt"), "keep me");

    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--sizes", "4K", "--out", file.toString()),
        "gpucomm bench: report directory '" + file + "' (--out) is a file, not a directory");
    assertThat(file).hasContent("keep me");
    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--out", file.resolve("sub").toString()),
        "gpucomm run: report directory '"
            + file.resolve("sub")
            + "' (--out) cannot be created: "
            + file
            + " is a file");
  }

  @Test
  void anEmptyOrRootReportDirectoryIsRefused() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--out", ""),
        "gpucomm run: report directory '' (--out) is empty");
    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--out", "/"),
        "gpucomm run: report directory '/' (--out) is the root directory");
  }

  @Test
  void aTuneTableThatCannotTakeTheCurveIsRefusedBeforeTheSweep() throws Exception {
    Path job = tuneJob();
    Path corrupt = Files.writeString(dir.resolve("table.json"), "{ not json");
    Path out = dir.resolve("tune-report");

    CliRun run =
        CliRun.of(
            "tune", "-f", job.toString(), "--table", corrupt.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).startsWith("gpucomm tune: --table " + corrupt + ": ");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(out).doesNotExist();
    assertThat(corrupt).hasContent("{ not json");
  }

  @Test
  void aTuneTableInsideTheReportItWouldReplaceIsRefused() throws Exception {
    Path job = tuneJob();
    Path out = Files.createDirectories(dir.resolve("tune-report"));
    Files.writeString(out.resolve("report.json"), "{}");
    Path table = Files.writeString(out.resolve("tuning.json"), "{\"curves\": []}");

    CliRun run =
        CliRun.of(
            "tune", "-f", job.toString(), "--table", table.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm tune: --table "
                + table
                + ": lies in the report directory '"
                + out
                + "' (--out), which the new report replaces; copy it elsewhere or name another"
                + " --out"
                + System.lineSeparator());
    assertThat(table).hasContent("{\"curves\": []}");
  }

  @Test
  void aTuneTableThatIsTheNewReportDirectoryIsRefusedBeforeTheSweep() throws Exception {
    Path job = tuneJob();
    Path out = dir.resolve("same");

    CliRun run =
        CliRun.of("tune", "-f", job.toString(), "--table", out.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm tune: --table "
                + out
                + ": is the report directory '"
                + out
                + "' (--out) or a folder above it; name a file elsewhere"
                + System.lineSeparator());
    assertThat(run.out()).as("no sweep ran").doesNotContain("Report:");
    assertThat(out).doesNotExist();
  }

  /** The valid job as a tune job of the same size. */
  private Path tuneJob() throws IOException {
    return Files.writeString(
        dir.resolve("tune.yaml"),
        VALID.replace(
            "kind: benchmark\n    benchmark: {sizes: [4096], dtype: bf16}",
            "kind: tune\n    tune: {sizes: [4096], tableName: t}"));
  }

  @Test
  void malformedYamlNamesTheLineAndColumn() throws Exception {
    Path job =
        Files.writeString(
            dir.resolve("broken.yaml"), VALID.replace("  ranksPerPod: 2", "   ranksPerPod: 2"));

    CliRun run = CliRun.of("run", "-f", job.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "gpucomm run: " + job + ":6:15: malformed YAML: mapping values are not allowed here");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void anUnknownDevice() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    assertUsageError(
        CliRun.of("run", "-f", job.toString(), "--device", "tpu"),
        "gpucomm run: --device: unknown value 'tpu' (expected cuda, cpu)");
  }

  @Test
  void benchRejectsASizeThatIsNotASize() {
    assertUsageError(
        CliRun.of("bench", "--sizes", "4K,1X", "--device", "cpu"),
        "gpucomm bench: --sizes: '1X' is not a size (e.g. 4096, 64K, 1M)");
  }

  @Test
  void benchRejectsAnUnknownAlgorithm() {
    assertUsageError(
        CliRun.of("bench", "--algorithms", "auto,fastest", "--device", "cpu"),
        "gpucomm bench: --algorithms: unknown value 'fastest' (expected auto, nccl, oneshot, twoshot, ring, hierarchical, copyengine)");
  }

  @Test
  void benchRejectsAListWithATrailingComma() {
    // an empty last item is a typo (a value left out), not a shorter list
    assertUsageError(
        CliRun.of("bench", "--algorithms", "auto,oneshot,", "--device", "cpu"),
        "gpucomm bench: --algorithms: unknown value 'oneshot,' (expected auto, nccl, oneshot, twoshot, ring, hierarchical, copyengine)");
    assertUsageError(
        CliRun.of("bench", "--sizes", "4K,", "--device", "cpu"),
        "gpucomm bench: --sizes: '4K,' is not a size (e.g. 4096, 64K, 1M)");
    assertUsageError(
        CliRun.of("bench", "--tokens", "32,64,", "--hidden", "1024", "--device", "cpu"),
        "gpucomm bench: --tokens: '64,' is not an integer");
  }

  @Test
  void tuneNeedsATuneJob() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), VALID);
    assertUsageError(
        CliRun.of("tune", "-f", job.toString()),
        "gpucomm tune: "
            + job
            + ": spec.workload.kind: gpucomm tune needs a tune job, this is benchmark (use gpucomm run)");
  }

  @Test
  void aRankWithoutItsEnvironment() {
    assertUsageError(
        CliRun.of("rank"),
        "gpucomm rank: WORLD_SIZE: required (set by gpucomm launch or gpucomm run)");
  }

  @Test
  void aRankWithABadRendezvousAddress() {
    assertUsageError(
        CliRun.of(Map.of("WORLD_SIZE", "2", "RANK", "0", "GPUCOMM_RENDEZVOUS", "store"), "rank"),
        "gpucomm rank: GPUCOMM_RENDEZVOUS: 'store' is not host:port");
    assertUsageError(
        CliRun.of(Map.of("WORLD_SIZE", "2", "RANK", "0", "GPUCOMM_RENDEZVOUS", "[]:80"), "rank"),
        "gpucomm rank: GPUCOMM_RENDEZVOUS: '[]:80' has no host");
    assertUsageError(
        CliRun.of(
            Map.of("WORLD_SIZE", "2", "RANK", "0", "GPUCOMM_RENDEZVOUS", "[::1:29500"), "rank"),
        "gpucomm rank: GPUCOMM_RENDEZVOUS: '[::1:29500' is not host:port (an IPv6 host in"
            + " brackets: [::1]:29500)");
  }

  @Test
  void launchOutsideAPodWritesTheTerminationMessage() throws Exception {
    Path log = dir.resolve("termination-log");

    CliRun run = CliRun.of(Map.of("GPUCOMM_TERMINATION_LOG", log.toString()), "launch");

    assertUsageError(
        run, "gpucomm launch: GPUCOMM_WORLD_SIZE: required (set by the gpucomm operator)");
    assertThat(log).hasContent("GPUCOMM_WORLD_SIZE: required (set by the gpucomm operator)");
  }

  @Test
  void launchOutsideAPodCreatesNoTerminationLogInDev() {
    Path defaultLog = Path.of(LaunchCommand.DEFAULT_TERMINATION_LOG);
    assumeFalse(Files.exists(defaultLog), "this host has " + defaultLog + " (a container)");

    CliRun run = CliRun.of(Map.of(), "launch");

    assertUsageError(
        run, "gpucomm launch: GPUCOMM_WORLD_SIZE: required (set by the gpucomm operator)");
    assertThat(defaultLog).as("even when run as root").doesNotExist();
  }

  @Test
  void reportOfAJobNeedsACluster() {
    CliRun run = CliRun.of("report", "ar-tp4");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "gpucomm report: 'ar-tp4' is not a report directory, and reading job results needs a cluster");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void debugAddsTheStackTrace() {
    CliRun run = CliRun.of("run", "--debug");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("at dev.gpucomm.runtime.cli.");
    assertThat(run.err())
        .endsWith("gpucomm run: --file is required (the CommJob file)" + System.lineSeparator());
  }

  @Test
  void helpIsNotAnError() {
    CliRun overview = CliRun.of("--help");
    CliRun run = CliRun.of("run", "--help");

    assertThat(overview.exitCode()).isZero();
    assertThat(overview.out())
        .contains("run ", "bench ", "tune ", "selftest ", "launch ", "rank ", "report ");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("Usage: gpucomm run -f FILE").contains("--dump-ir");
  }

  @Test
  void theHelpListsTheExitCodes() {
    CliRun overview = CliRun.of("--help");

    assertThat(overview.out())
        .contains("Exit codes:")
        .containsPattern("0\\s+success")
        .containsPattern("1\\s+failure")
        .containsPattern("2\\s+usage error")
        .containsPattern("5\\s+run: the job ran, but spec.expect");
  }

  @Test
  void helpOfACommandIsItsOwnHelp() {
    CliRun help = CliRun.of("help", "report");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).isEqualTo(CliRun.of("report", "--help").out()).contains("--format");
    assertThat(CliRun.of("--version").out()).startsWith("gpucomm ");
  }

  @Test
  void dashFMeansTheFileEverywhereSoReportsFormatIsSpelledOut() throws Exception {
    Path report = Files.createDirectories(dir.resolve("report"));
    assertUsageError(
        CliRun.of("report", report.toString(), "-f", "json"),
        "gpucomm report: unknown option '-f' (see gpucomm report --help)");
    assertUsageError(
        CliRun.of("report", report.toString(), "--format", "pdf"),
        "gpucomm report: --format: 'pdf' is not one of md|json|csv|svg|nccl-tests");
  }

  @Test
  void aValueThatIsNoNumberIsSaidOfTheOptionAsTyped() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-n", "abc"),
        "gpucomm bench: -n: 'abc' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-nabc"),
        "gpucomm bench: -n: 'abc' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--iters=abc"),
        "gpucomm bench: --iters: 'abc' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-e", "8G", "--max-bytes", "1Q"),
        "gpucomm bench: --max-bytes: '1Q' is not a size (e.g. 4096, 64K, 1M)");
    // the alias beside the value that failed, not the one typed last
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--iters", "abc", "-n", "5"),
        "gpucomm bench: --iters: 'abc' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-e", "1Q", "--max-bytes", "8G"),
        "gpucomm bench: -e: '1Q' is not a size (e.g. 4096, 64K, 1M)");
  }

  @Test
  void anIntegerOptionSaysWhatIsWrongWithItsValue() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--iterations", "many"),
        "gpucomm bench: --iterations: 'many' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--world", "0"),
        "gpucomm bench: --world: 0 is outside 1..4096");
    assertUsageError(
        CliRun.of("selftest", "--device", "cpu", "--world", "65"),
        "gpucomm selftest: --world: 65 is outside 1..64");
  }

  @Test
  void digitsOfAnotherScriptAreNotANumber() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--world", "\u0662"),
        "gpucomm bench: --world: '\u0662' is not an integer");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--sizes", "\u0664K"),
        "gpucomm bench: --sizes: '\u0664K' is not a size (e.g. 4096, 64K, 1M)");
  }

  @Test
  void anOptionGivenTwiceOrAnArgumentNobodyTakes() {
    assertUsageError(
        CliRun.of("run", "-f", "a.yaml", "--device", "cpu", "--device", "cuda"),
        "gpucomm run: --device given twice");
    assertUsageError(
        CliRun.of("launch", "now"),
        "gpucomm launch: unexpected argument 'now' (see gpucomm launch --help)");
    assertUsageError(
        CliRun.of("report"),
        "gpucomm report: name one report directory or job (see gpucomm report --help)");
  }

  @Test
  void anOutputThatCannotBeWrittenFailsTheCommandInOneLine() {
    OutputStream full =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("No space left on device");
          }
        };
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exit =
        Gpucomm.execute(
            new String[] {"completion", "bash"},
            new PrintStream(full, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("gpucomm: cannot write to standard output\n");
  }
}
