package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpucomm run} end to end: the launcher runs in the test JVM, each rank is a child JVM on
 * the test class path, on the CPU backend.
 */
@Timeout(180)
class GpucommRunIT {
  private static final String JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: run-it}
      spec:
        worldSize: WORLD
        ranksPerPod: WORLD
        device: cpu
        workload:
          kind: benchmark
          benchmark:
            dtype: bf16
            sizes: [4096, 65536]
            warmupIterations: 1
            iterations: 3
        timeoutSeconds: 120
      """;

  @TempDir Path dir;

  private Path job(int world) throws Exception {
    return Files.writeString(dir.resolve("job.yaml"), jobText(world));
  }

  private static String jobText(int world) {
    return JOB.replace("WORLD", String.valueOf(world));
  }

  @Test
  void aJobRunsOnRankProcessesAndLeavesItsReport() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");

    CliRun run = CliRun.of(Map.of(), "run", "-f", job(2).toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("| (2048,) | 4 KB |", "| (32768,) | 0.06 MB |", "Report: " + out);
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.path("schemaVersion").asInt()).isEqualTo(1);
    assertThat(report.path("worldSize").asInt()).isEqualTo(2);
    assertThat(report.path("sizes")).hasSize(2);
    assertThat(report.path("sizes").get(0).path("measurements")).hasSize(3);
    assertThat(out.resolve("report.md")).exists();
    assertThat(siblingsOf(out)).containsExactly("run-it");
  }

  @Test
  void aJobOfTwoPodsRunsLocallyWithRingHierarchicalAndAuto() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");
    Path job =
        Files.writeString(
            dir.resolve("multipod.yaml"),
            JOB.replace("ranksPerPod: WORLD", "ranksPerPod: 2")
                .replace("WORLD", "4")
                .replace(
                    "dtype: bf16", "dtype: bf16\n      algorithms: [ring, hierarchical, auto]"));

    CliRun run = CliRun.of(Map.of(), "run", "-f", job.toString(), "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.path("worldSize").asInt()).isEqualTo(4);
    assertThat(report.path("ranksPerPod").asInt()).isEqualTo(2);
    assertThat(report.path("sizes")).hasSize(2);
    for (JsonNode size : report.path("sizes")) {
      assertThat(size.path("measurements").findValuesAsText("algorithm"))
          .containsExactlyInAnyOrder("ring", "hierarchical");
      // auto's pick is measured already, so the report names it instead of measuring it twice.
      assertThat(size.path("chosen").asText()).isEqualTo("hierarchical");
      assertThat(size.path("chosenReason").asText())
          .startsWith("spans 2 pods of 2 ranks (world 4): FlashInfer's");
    }
  }

  @Test
  void specExpectGatesALocalRunAsItGatesTheJobInACluster() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");
    String rules =
        "timeoutSeconds: 120\n  expect:\n"
            + "    - {collective: allreduce, bytes: 4Ki, maxLatencyMicros: 1000000000}\n";
    Path met =
        Files.writeString(
            dir.resolve("met.yaml"), jobText(1).replace("timeoutSeconds: 120\n", rules));
    Path missed =
        Files.writeString(
            dir.resolve("missed.yaml"),
            jobText(1)
                .replace(
                    "timeoutSeconds: 120\n",
                    rules
                        + "    - {collective: allreduce, bytes: 64Ki, minBusBandwidthGBps: 1000000000}\n"));

    CliRun passing = CliRun.of(Map.of(), "run", "-f", met.toString(), "--out", out.toString());
    CliRun failing = CliRun.of(Map.of(), "run", "-f", missed.toString(), "--out", out.toString());

    assertThat(passing.exitCode()).as(passing.err()).isZero();
    assertThat(passing.out()).contains("Expectations: all 1 rules met");
    assertThat(failing.exitCode()).as(failing.err()).isEqualTo(5);
    assertThat(failing.err().lines())
        .singleElement()
        .asString()
        .startsWith(
            "gpucomm run: spec.expect: 1 of 2 rules not met: spec.expect[1] (allreduce 64Ki): ")
        .endsWith("below 1000000000 GB/s");
    // the figures that missed the floor are kept, as the operator keeps them in the status
    assertThat(failing.out()).contains("Report: " + out);
    assertThat(out.resolve("report.json")).exists();
  }

  @Test
  void aFailingRankStopsTheJobIsNamedAndLeavesNoReport() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");

    CliRun run =
        CliRun.of(
            Map.of("GPUCOMM_TEST_FAIL_RANK", "1"),
            "run",
            "-f",
            job(3).toString(),
            "--out",
            out.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().lines().filter(line -> line.startsWith("gpucomm run: rank ")))
        .singleElement()
        .asString()
        .startsWith("gpucomm run: rank 1 failed: injected failure (GPUCOMM_TEST_FAIL_RANK=1)");
    assertThat(run.err()).doesNotContain("\tat ");
    assertThat(dir.resolve("reports")).doesNotExist();
  }

  @Test
  void aRankFailingAsItsPeersStartTheWorkloadIsNamedWithinSeconds() throws Exception {
    long start = System.nanoTime();

    CliRun run =
        CliRun.of(
            Map.of("GPUCOMM_TEST_FAIL_RANK", "1", "GPUCOMM_TEST_FAIL_AT", "workload"),
            "run",
            "-f",
            job(3).toString(),
            "--out",
            dir.resolve("reports").resolve("run-it").toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().lines().filter(line -> line.startsWith("gpucomm run: rank ")))
        .singleElement()
        .asString()
        .startsWith(
            "gpucomm run: rank 1 failed: injected failure (GPUCOMM_TEST_FAIL_RANK=1"
                + " GPUCOMM_TEST_FAIL_AT=workload)");
    // the peers waited in the workload's first collective: the store freed them, not a timeout
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void aJavaOptionAfterWhichNoRankWouldRunIsRefusedAndTheEarlierReportKept() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");
    assertThat(
            CliRun.of(Map.of(), "run", "-f", job(1).toString(), "--out", out.toString()).exitCode())
        .isZero();
    String earlier = Files.readString(out.resolve("report.json"));

    // -version: every rank's JVM would print its version and exit 0 without running the rank
    // (a rank that exits 0 unfinished anyway fails its job: RankSupervisorIT)
    CliRun run =
        CliRun.of(
            Map.of("GPUCOMM_JAVA_OPTS", "-version"),
            "run",
            "-f",
            job(2).toString(),
            "--out",
            out.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm run: GPUCOMM_JAVA_OPTS: -version would start no gpucomm rank (the JVM would"
                + " print or run something else); give JVM options only, e.g. -Xmx4g\n");
    assertThat(run.out()).doesNotContain("Report: ");
    assertThat(out.resolve("report.json")).hasContent(earlier);
  }

  /**
   * The checkout's {@code ./gpucomm} asks the JVM about the options its ranks will take, as the
   * bundle's launcher does: an option no JVM starts with is one usage line naming its variable, not
   * a missing Java 25 nor each rank's three lines of JVM refusal; and the earlier report stays.
   */
  @Test
  void theCheckoutsLauncherRefusesAnOptionTheJvmDoesNotTakeBeforeAnyRankStarts() throws Exception {
    Path out = dir.resolve("reports").resolve("run-it");
    for (String variable : new String[] {"GPUCOMM_JAVA_OPTS", "JDK_JAVA_OPTIONS"}) {
      ProcessBuilder launcher =
          new ProcessBuilder("../gpucomm", "run", "-f", job(2).toString(), "--out", out.toString())
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(dir.resolve("launcher.err").toFile());
      launcher.environment().put("JAVA_HOME", System.getProperty("java.home"));
      // only the option under test: a build's own JAVA_TOOL_OPTIONS would be named beside it
      launcher.environment().keySet().removeAll(List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS"));
      launcher.environment().put(variable, "-XX:+NoSuchFlagOfTheJvm");
      Process process = launcher.start();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the launcher finished").isTrue();

      assertThat(process.exitValue()).as(variable).isEqualTo(2);
      assertThat(Files.readString(dir.resolve("launcher.err")))
          .startsWith(
              "gpucomm: "
                  + variable
                  + ": the JVM does not start with these options: Unrecognized VM option"
                  + " 'NoSuchFlagOfTheJvm'")
          .hasLineCount(1);
      assertThat(out).as("no rank ran").doesNotExist();
    }
  }

  /**
   * Run as a user runs it ({@code ./gpucomm}, ranks as child processes whose progress lines reach
   * the terminal): the table of what was checked, and progress lines that each say which collective
   * or fused pattern and dtype they belong to.
   */
  @Test
  void selftestChecksEveryAlgorithmAndSaysWhatEachProgressLineBelongsTo() throws Exception {
    Path stdout = dir.resolve("selftest.out");
    Path stderr = dir.resolve("selftest.err");
    ProcessBuilder launcher =
        new ProcessBuilder("../gpucomm", "selftest", "--device", "cpu", "--world", "2")
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile());
    launcher.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // read back as UTF-8 whatever this machine's locale (a POSIX one would print '?' for '·')
    launcher.environment().put("LC_ALL", "C.UTF-8");
    Process process = launcher.start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("selftest finished").isTrue();
    String out = Files.readString(stdout);
    String err = Files.readString(stderr);

    assertThat(process.exitValue()).as(err).isZero();
    assertThat(out)
        .contains(
            "| allreduce | bf16 | ring, oneshot, twoshot | 4 | ok |",
            "| allreduce (in place) | bf16 | ring | 4 | ok |",
            "| allgather | bf16 | ring, oneshot, copyengine | 4 | ok |",
            "| reducescatter | fp32 | ring, oneshot, copyengine | 4 | ok |",
            "| allgather (sizes falling across kernels) | bf16 | ring, oneshot, copyengine | 4 |"
                + " ok |",
            "| allreduce + allreduceResidualRmsNorm | bf16 | ring, oneshot, twoshot | 4 | ok |",
            "| allreduce + allreduceResidualRmsNormFp8 (dtype sums) | fp16 | ring, oneshot,"
                + " twoshot | 4 | ok |",
            "| allreduce + allreduceResidualRmsNorm (decode shape) | bf16 | ring, oneshot,"
                + " twoshot | 2 | ok",
            "| allreduce + allreduceResidualRmsNorm (decode shape) (dtype sums) | bf16 | ring,"
                + " oneshot, twoshot | 2 | ok",
            "selftest passed: ");
    List<String> progress = err.lines().filter(line -> line.contains(" · size ")).toList();
    assertThat(progress)
        .as("every progress line says which collective or pattern and dtype it belongs to")
        .isNotEmpty()
        .allSatisfy(
            line ->
                assertThat(line)
                    .matches(
                        "(allreduce|allgather|reducescatter|broadcast|collectivepermute"
                            + "|allreduceResidualRmsNorm(Fp8)?)"
                            + "( \\((in place|sizes falling across kernels|decode shape)\\))?"
                            + " · (bf16|fp16|fp32)( · fp32 accumulate)? · size .*"))
        .anyMatch(line -> line.startsWith("allreduceResidualRmsNormFp8 · fp16 · "));
  }

  @Test
  void aJobTheRanksRefuseIsOneUsageLineNamingTheCommandOnce() {
    CliRun run =
        CliRun.of(
            Map.of(),
            "bench",
            "--device",
            "cpu",
            "--collective",
            "allgather",
            "--algorithms",
            "twoshot",
            "--out",
            dir.resolve("refused").toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err().lines())
        .singleElement()
        .asString()
        .matches(
            "gpucomm bench: rank [01] failed: spec\\.workload\\.benchmark\\.algorithms\\[0\\]:"
                + " twoshot is not available for allgather on the cpu device .*");
  }

  private static Stream<String> siblingsOf(Path path) throws Exception {
    try (Stream<Path> listing = Files.list(path.getParent())) {
      return listing.map(p -> p.getFileName().toString()).toList().stream();
    }
  }
}
