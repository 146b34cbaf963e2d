package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.launch.JavaCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CPU-backend ranks bind themselves to CPUs of their own, and say so: {@code gpucomm run} as a
 * process of its own, so that the ranks' log lines, which they write to the terminal they share
 * with the launcher, can be read back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CpuBindingIT {
  private static final String JOB =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: cpu-binding}
      spec:
        worldSize: 2
        ranksPerPod: 2
        device: cpu
        workload:
          kind: benchmark
          benchmark:
            sizes: [4096]
            warmupIterations: 1
            iterations: 3
        timeoutSeconds: 60
      """;

  private static final Pattern BOUND =
      Pattern.compile("cpu binding: rank (\\d) bound to CPUs? ([0-9,-]+) \\(allowed [0-9,-]+\\)");

  @TempDir Path dir;

  @Test
  void onAHostOfTwoOrMoreCpusEachOfTwoRanksIsBoundToCpusOfItsOwn() throws Exception {
    assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two CPUs");

    String log = runAndReadStandardError(Map.of());

    Matcher bound = BOUND.matcher(log);
    Map<Integer, Set<Integer>> cpusOfRank = new TreeMap<>();
    while (bound.find()) {
      cpusOfRank.put(Integer.parseInt(bound.group(1)), cpus(bound.group(2)));
    }
    assertThat(cpusOfRank).as(log).containsOnlyKeys(0, 1);
    assertThat(cpusOfRank.get(0))
        .as(log)
        .isNotEmpty()
        .doesNotContainAnyElementsOf(cpusOfRank.get(1));
  }

  @Test
  void withBindingTurnedOffTheRanksOfAPodFloatAndItsFirstRankSaysWhyOnce() throws Exception {
    String log = runAndReadStandardError(Map.of("GPUCOMM_CPU_BIND", "none"));

    assertThat(log).doesNotContainPattern(BOUND);
    assertThat(log.lines().filter(line -> line.startsWith("cpu binding: ")).toList())
        .containsExactly("cpu binding: ranks not bound to CPUs: GPUCOMM_CPU_BIND=none");
  }

  /** The CPUs of a list as Linux writes it: {@code 0-3,8}. */
  private static Set<Integer> cpus(String list) {
    Set<Integer> cpus = new TreeSet<>();
    for (String range : list.split(",")) {
      String[] ends = range.split("-");
      int first = Integer.parseInt(ends[0]);
      int last = Integer.parseInt(ends[ends.length - 1]);
      for (int cpu = first; cpu <= last; cpu++) {
        cpus.add(cpu);
      }
    }
    return cpus;
  }

  /** Runs {@link #JOB} with {@code extraEnvironment}, expects success, returns what was logged. */
  private String runAndReadStandardError(Map<String, String> extraEnvironment) throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), JOB);
    Path out = Files.createTempDirectory(dir, "report");
    Path stderr = Files.createTempFile(dir, "stderr", ".txt");
    JavaCommand gpucomm = JavaCommand.ofCurrentJvm();
    ProcessBuilder builder =
        new ProcessBuilder(
                gpucomm.command(List.of("run", "-f", job.toString(), "--out", out.toString())))
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(stderr.toFile());
    builder.environment().putAll(extraEnvironment);
    Process launcher = builder.start();
    try {
      assertThat(launcher.waitFor(100, TimeUnit.SECONDS)).as("launcher exited").isTrue();
    } finally {
      launcher.destroyForcibly();
    }
    String log = Files.readString(stderr);
    assertThat(launcher.exitValue()).as(log).isZero();
    return log;
  }
}
