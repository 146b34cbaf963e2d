package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
