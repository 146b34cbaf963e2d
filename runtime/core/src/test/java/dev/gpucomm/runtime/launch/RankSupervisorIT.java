package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.RunId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The supervisor with real child processes standing in for ranks. */
@Timeout(60)
class RankSupervisorIT {
  private static final JavaCommand STAND_IN =
      JavaCommand.ofCurrentJvm().withMainClass(StandInRank.class.getName());

  private static List<RankSettings> ranks(int world) {
    List<RankSettings> ranks = new ArrayList<>();
    for (int rank = 0; rank < world; rank++) {
      ranks.add(
          new RankSettings(
              Path.of("job.json"),
              "job.yaml",
              rank,
              rank,
              world,
              world,
              rank,
              Optional.empty(),
              new RendezvousAddress("127.0.0.1", 1),
              RunId.NONE,
              Optional.empty(),
              Optional.empty(),
              RankMode.JOB,
              ProgressStyle.OFF,
              false,
              true));
    }
    return ranks;
  }

  private static SupervisionResult supervise(
      Map<String, String> behaviours, int world, Duration limit) {
    return new RankSupervisor(STAND_IN, behaviours, System.out).supervise(ranks(world), limit);
  }

  @Test
  void allRanksSucceeding() {
    assertThat(supervise(Map.of(), 3, Duration.ofSeconds(30)))
        .isEqualTo(new SupervisionResult.Succeeded(3));
  }

  @Test
  void aVariableTheLauncherSetsPerRankDoesNotLeakFromItsOwnEnvironment() {
    // a GPUCOMM_REPORT_DIR given to the launcher (selftest's ranks write no report) stays there
    assertThat(
            supervise(
                Map.of(
                    "GPUCOMM_REPORT_DIR", "/tmp/not-for-ranks", "STAND_IN_RANK_0", "no-report-dir"),
                1,
                Duration.ofSeconds(30)))
        .isEqualTo(new SupervisionResult.Succeeded(1));
  }

  @Test
  void aRankThatExitsZeroWithoutFinishingFailsTheJob() {
    SupervisionResult result =
        supervise(
            Map.of("STAND_IN_RANK_0", "hang", "STAND_IN_RANK_1", "exit-early"),
            2,
            Duration.ofSeconds(30));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.message())
        .isEqualTo(
            "rank 1 failed: exited with code 0 before it started the rank: its JVM ended first"
                + " (see its output above; an option in GPUCOMM_JAVA_OPTS, JDK_JAVA_OPTIONS or"
                + " JAVA_TOOL_OPTIONS does that) (stopped rank 0)");
  }

  @Test
  void aJvmOptionTheRanksJvmRefusesIsToldApartFromARankThatFailed() {
    List<String> options = new ArrayList<>(STAND_IN.jvmOptions());
    options.add("-XX:+NoSuchOptionInAnyJvm");
    JavaCommand refused =
        new JavaCommand(
            STAND_IN.javaExecutable(), STAND_IN.classPath(), options, STAND_IN.mainClass());

    SupervisionResult result =
        new RankSupervisor(refused, Map.of(), System.out)
            .supervise(ranks(1), Duration.ofSeconds(30));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.message())
        .isEqualTo(
            "rank 0 failed: exited with code 1 before it started the rank: its JVM ended first"
                + " (see its output above; an option in GPUCOMM_JAVA_OPTS, JDK_JAVA_OPTIONS or"
                + " JAVA_TOOL_OPTIONS does that)");
  }

  @Test
  void aFailingRankStopsTheOthersAndIsNamed() {
    SupervisionResult result =
        supervise(
            Map.of(
                "STAND_IN_RANK_0", "hang",
                "STAND_IN_RANK_1",
                    "fail:allreduce oneshot at 4 KiB: rank 1 output element 3 is wrong",
                "STAND_IN_RANK_2", "hang"),
            3,
            Duration.ofSeconds(30));

    assertThat(result).isInstanceOf(SupervisionResult.RankFailed.class);
    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.message())
        .isEqualTo(
            "rank 1 failed: allreduce oneshot at 4 KiB: rank 1 output element 3 is wrong"
                + " (stopped ranks 0, 2)");
  }

  @Test
  void theRankThatDiedFirstIsNamedRatherThanTheOnesThatNoticed() {
    SupervisionResult result =
        supervise(
            Map.of(
                "STAND_IN_RANK_0", "peer:rendezvous: rank 2 disconnected",
                "STAND_IN_RANK_1", "peer:rendezvous: rank 2 disconnected",
                "STAND_IN_RANK_2", "crash"),
            3,
            Duration.ofSeconds(30));

    assertThat(result.message())
        .isEqualTo("rank 2 failed: exited with code 134 (SIGABRT) without an error message");
  }

  @Test
  void aUsageErrorInARankExitsWithTwo() {
    SupervisionResult result =
        supervise(
            Map.of(
                "STAND_IN_RANK_0",
                "usage:job.yaml: spec.workload.benchmark.algorithms[1]: nccl is not available"),
            2,
            Duration.ofSeconds(30));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.message())
        .startsWith("rank 0 failed: job.yaml: spec.workload.benchmark.algorithms[1]");
  }

  @Test
  void theSharedMemoryFilesOfARankThatDiedAreRemoved() throws Exception {
    String job = "supervisor-it-" + ProcessHandle.current().pid();
    SupervisionResult result =
        supervise(Map.of("STAND_IN_RANK_1", "shm-crash:" + job), 2, Duration.ofSeconds(30));

    assertThat(result.message()).contains("rank 1").contains("137");
    try (var files = Files.list(CpuBackendConfig.defaultSharedMemoryDirectory())) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .noneMatch(name -> name.startsWith("gpucomm-" + job + "-"));
    }
  }

  @Test
  void aRankStoppedWithSigstopFailsTheJobByNameLongBeforeItsTimeLimit() throws Exception {
    Duration timeLimit = Duration.ofSeconds(50);
    long started = System.nanoTime();
    RankSupervisor supervisor =
        new RankSupervisor(
            STAND_IN,
            Map.of(
                "STAND_IN_RANK_0", "hang",
                "STAND_IN_RANK_1", "hang",
                "STAND_IN_RANK_2", "hang"),
            System.out,
            Duration.ofSeconds(2));

    StoppedRun run = stopRankOneWhile(() -> supervisor.supervise(ranks(3), timeLimit));

    assertThat(run.result().message())
        .isEqualTo(
            "rank 1 failed: was stopped (SIGSTOP, SIGTSTP or a debugger) for 2 s, holding up"
                + " every other rank (stopped ranks 0, 2)");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(timeLimit);
    assertThat(run.killed()).as("the stopped rank is killed").isTrue();
  }

  @Test
  void aRankStoppedBeforeItsPeersNoticedIsNamedNotThePeerThatNoticed() throws Exception {
    // the peers see its silence through the store's heartbeats well before the stopped limit
    StoppedRun run =
        stopRankOneWhile(
            () ->
                supervise(
                    Map.of(
                        "STAND_IN_RANK_0",
                        "peer-later:rendezvous: rank 1 sent no heartbeat for 10.0 s",
                        "STAND_IN_RANK_1",
                        "hang"),
                    2,
                    Duration.ofSeconds(50)));

    assertThat(run.result().message())
        .isEqualTo(
            "rank 1 failed: was stopped (SIGSTOP, SIGTSTP or a debugger) while the others waited"
                + " for it");
  }

  /** A supervision's verdict, and whether the rank it stopped was gone after it. */
  private record StoppedRun(SupervisionResult result, boolean killed) {}

  /**
   * Runs {@code supervision} (on a thread of the common pool, as an embedding might) and stops rank
   * 1 with SIGSTOP as soon as it runs; resumes and kills it afterwards if it is still there.
   */
  private static StoppedRun stopRankOneWhile(Supplier<SupervisionResult> supervision)
      throws Exception {
    CompletableFuture<SupervisionResult> supervising = CompletableFuture.supplyAsync(supervision);
    ProcessHandle rank1 =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> rankProcess(1), Optional::isPresent)
            .get();
    try {
      signal("STOP", rank1);
      SupervisionResult result = supervising.get(40, TimeUnit.SECONDS);
      return new StoppedRun(result, !rank1.isAlive());
    } finally {
      if (rank1.isAlive()) {
        signal("CONT", rank1);
        rank1.destroyForcibly();
      }
    }
  }

  /** The rank process of this JVM's supervisor that runs rank {@code rank}, once started. */
  private static Optional<ProcessHandle> rankProcess(int rank) {
    try (var children = ProcessHandle.current().children()) {
      return children
          .filter(child -> environment(child).contains(EnvVars.RANK + "=" + rank))
          .findFirst();
    }
  }

  /** A process's environment as Linux shows it, where this test's stopped-rank check looks. */
  private static List<String> environment(ProcessHandle process) {
    try {
      byte[] environ =
          Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "environ"));
      return List.of(new String(environ, StandardCharsets.UTF_8).split("\u0000"));
    } catch (IOException e) {
      return List.of(); // not started yet, or gone
    }
  }

  private static void signal(String signal, ProcessHandle process) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0)
        .as("kill -%s %d", signal, process.pid())
        .isTrue();
  }

  @Test
  void theTimeLimitStopsEveryRank() {
    SupervisionResult result =
        supervise(
            Map.of("STAND_IN_RANK_0", "hang", "STAND_IN_RANK_1", "hang"), 2, Duration.ofSeconds(1));

    assertThat(result)
        .isEqualTo(new SupervisionResult.TimedOut(Duration.ofSeconds(1), List.of(0, 1)));
    assertThat(result.message())
        .isEqualTo("job timed out after 1 s (spec.timeoutSeconds); stopped ranks 0, 1");
  }
}
