package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.launch.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpucomm run} stopped with SIGTERM (a CI job cancelled, {@code kill}, {@code timeout}): the
 * launcher is a process of its own here, as it is for a user, so that the signal goes through the
 * JVM's shutdown as it does for them. The races these tests guard against showed in some runs only,
 * hence the repetitions.
 */
class InterruptedRunIT {
  /**
   * A first size that ends at once, so that rank 0's progress line shows the ranks at work, and a
   * second one that outlasts the test by far.
   */
  private static final String LONG_JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: interrupted}
      spec:
        worldSize: WORLD
        device: cpu
        workload:
          kind: benchmark
          benchmark:
            sizes: [1024, 67108864]
            warmupIterations: 1
            iterations: 1000
        timeoutSeconds: 600
      """;

  /** Exit status of a JVM that SIGTERM ended after running its shutdown hooks. */
  private static final int ENDED_BY_SIGTERM = 128 + 15;

  private static final String INTERRUPTED =
      "gpucomm: interrupted; the ranks were stopped and no report was written";

  @TempDir Path dir;

  /** The launcher's and its ranks' temporary directory; its name also marks their processes. */
  private Path temporary;

  private Path stderr;
  private Process launcher;

  @BeforeEach
  void ownTemporaryDirectory() throws Exception {
    temporary = Files.createDirectory(dir.resolve("tmp"));
    stderr = dir.resolve("stderr.txt");
  }

  @AfterEach
  void leaveNothingRunning() {
    if (launcher != null) {
      launcher.destroyForcibly();
    }
    rankProcesses().forEach(ProcessHandle::destroyForcibly);
  }

  // Twice: once the ranks run, the hook's race with the launcher is narrow (the start-up case below
  // is where it is wide); each repeat costs a sweep's start.
  @RepeatedTest(2)
  @Timeout(value = 40, unit = TimeUnit.SECONDS)
  void sigtermWhileTheRanksRunStopsThemWithoutBlamingThemAndLeavesNothingBehind() throws Exception {
    launcher = startLauncher(2);
    // rank 0 prints a line per size measured: after the first, every rank is in the workload
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !launcher.isAlive() || read(stderr).contains("median"));
    assertThat(launcher.isAlive())
        .as("launcher still running; it printed:%n%s", read(stderr))
        .isTrue();
    List<ProcessHandle> ranks = rankProcesses();
    assertThat(ranks).hasSize(2);

    launcher.destroy(); // SIGTERM

    assertThat(launcher.waitFor(20, TimeUnit.SECONDS)).as("launcher exited").isTrue();
    String printed = read(stderr);
    assertThat(launcher.exitValue()).as(printed).isEqualTo(ENDED_BY_SIGTERM);
    assertThat(printed.lines())
        .noneMatch(line -> line.contains("failed") || line.contains("out-of-memory"))
        .contains(INTERRUPTED);
    assertThat(rankProcesses()).as("rank processes that outlive the launcher").isEmpty();
    assertThat(names(temporary))
        .as("work and error directories")
        .noneMatch(name -> name.startsWith("gpucomm-"));
    assertThat(dir.resolve("reports")).as("the report's staging and its parent").doesNotExist();
    assertThat(names(CpuBackendConfig.defaultSharedMemoryDirectory()))
        .as("shared-memory files of the ranks")
        .noneMatch(name -> ranks.stream().anyMatch(rank -> name.contains("-p" + rank.pid() + "-")));
  }

  @RepeatedTest(3)
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void sigtermWhileTheRanksAreStillBeingStartedLeavesNoneRunning() throws Exception {
    launcher = startLauncher(8);
    // three of the eight started: the launcher is busy starting the others
    await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(2))
        .atMost(Duration.ofSeconds(15))
        .until(() -> !launcher.isAlive() || launcher.children().count() >= 3);

    launcher.destroy(); // SIGTERM

    assertThat(launcher.waitFor(15, TimeUnit.SECONDS)).as("launcher exited").isTrue();
    String printed = read(stderr);
    assertThat(launcher.exitValue()).as(printed).isEqualTo(ENDED_BY_SIGTERM);
    assertThat(printed.lines()).noneMatch(line -> line.contains("failed"));
    // A rank started after the others were killed would outlive the launcher and then print its
    // own failure (its job file is gone) on the user's terminal.
    assertThat(rankProcesses()).isEmpty();
  }

  /** {@code gpucomm run} of {@link #LONG_JOB} on {@code world} ranks, as a process of its own. */
  private Process startLauncher(int world) throws Exception {
    Path job =
        Files.writeString(
            dir.resolve("job.yaml"), LONG_JOB.replace("WORLD", Integer.toString(world)));
    Path out = dir.resolve("reports").resolve("interrupted");
    JavaCommand current = JavaCommand.ofCurrentJvm();
    List<String> options = new ArrayList<>(current.jvmOptions());
    options.add(temporaryOption());
    JavaCommand gpucomm =
        new JavaCommand(
            current.javaExecutable(), current.classPath(), options, current.mainClass());
    ProcessBuilder builder =
        new ProcessBuilder(
                gpucomm.command(List.of("run", "-f", job.toString(), "--out", out.toString())))
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(dir.resolve("stdout.txt").toFile())
            .redirectError(stderr.toFile());
    // the ranks' JVMs get the launcher's options from here, as with the gpucomm script
    builder.environment().put(JavaCommand.JAVA_OPTS_ENV, temporaryOption());
    return builder.start();
  }

  private String temporaryOption() {
    return "-Djava.io.tmpdir=" + temporary;
  }

  /** The rank processes of this test's launcher, wherever they are in the process tree. */
  private List<ProcessHandle> rankProcesses() {
    long launcherPid = launcher == null ? -1 : launcher.pid();
    try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
      return all.filter(process -> process.pid() != launcherPid)
          .filter(process -> commandLine(process).contains(temporaryOption()))
          .toList();
    }
  }

  /**
   * The arguments of a live process, read from Linux's /proc: the JDK's own view gives none for a
   * command line as long as a rank's (its class path names every jar).
   */
  private static List<String> commandLine(ProcessHandle process) {
    try {
      byte[] arguments =
          Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
      return List.of(new String(arguments, StandardCharsets.UTF_8).split("\u0000"));
    } catch (IOException e) {
      return List.of(); // gone meanwhile, or another user's
    }
  }

  private static String read(Path file) throws Exception {
    return Files.exists(file) ? Files.readString(file) : "";
  }

  private static List<String> names(Path directory) throws Exception {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).toList();
    }
  }
}
