package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A rank process for supervisor tests: does what STAND_IN_RANK_&lt;rank&gt; says (succeed,
 * fail:msg, peer:msg, usage:msg, crash, shm-crash:job, hang, exit-early, no-report-dir) instead of
 * running a workload, so that supervision is tested with real processes but without devices.
 */
public final class StandInRank {
  private StandInRank() {}

  public static void main(String[] args) throws InterruptedException, IOException {
    String rank = System.getenv(EnvVars.RANK);
    String behaviour = System.getenv().getOrDefault("STAND_IN_RANK_" + rank, "succeed");
    Path errorFile = Path.of(System.getenv(EnvVars.ERROR_FILE));
    int colon = behaviour.indexOf(':');
    String what = colon < 0 ? behaviour : behaviour.substring(0, colon);
    String message = colon < 0 ? "" : behaviour.substring(colon + 1);
    if (!what.equals("exit-early")) {
      RankCompletion.markStarted(errorFile); // as RankCommand does first
    }
    switch (what) {
      case "succeed" -> {
        RankCompletion.markFinished(errorFile);
        System.exit(0);
      }
      case "exit-early" -> System.exit(0); // as a JVM given -version does
      case "no-report-dir" -> {
        // a rank given no report directory must not see the launcher's own
        String leaked = System.getenv(EnvVars.REPORT_DIR);
        if (leaked != null) {
          new RankError(RankError.Kind.FAILURE, "got " + EnvVars.REPORT_DIR + "=" + leaked)
              .writeTo(errorFile);
          System.exit(1);
        }
        RankCompletion.markFinished(errorFile);
        System.exit(0);
      }
      case "fail" -> {
        new RankError(RankError.Kind.FAILURE, message).writeTo(errorFile);
        System.exit(1);
      }
      case "usage" -> {
        new RankError(RankError.Kind.USAGE, message).writeTo(errorFile);
        System.exit(2);
      }
      case "peer-later" -> {
        // as a rank that notices its peer's silence only after the heartbeat limit
        Thread.sleep(3000);
        new RankError(RankError.Kind.PEER, message).writeTo(errorFile);
        System.exit(1);
      }
      case "peer" -> {
        new RankError(RankError.Kind.PEER, message).writeTo(errorFile);
        System.exit(1);
      }
      case "crash" -> Runtime.getRuntime().halt(134);
      case "shm-crash" -> {
        // leaves a shared-memory file as a rank killed while its communicator is set up does
        Path file =
            CpuBackendConfig.defaultSharedMemoryDirectory()
                .resolve(
                    "gpucomm-"
                        + message
                        + "-l"
                        + rank
                        + "-p"
                        + ProcessHandle.current().pid()
                        + "-1");
        Files.write(file, new byte[4096]);
        Runtime.getRuntime().halt(137);
      }
      case "hang" -> new CountDownLatch(1).await(); // until the supervisor stops it
      default -> throw new IllegalArgumentException(behaviour);
    }
  }
}
