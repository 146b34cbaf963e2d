package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.collective.DeviceBackends;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpucomm diag} hands its arguments to the CUDA diagnostics, found by class name. */
class DiagCommandTest {
  /** Stands in for the CUDA diagnostics: records what it was started with. */
  public static final class RecordingDiagnostics {
    static final List<List<String>> CALLS = new ArrayList<>();

    public static int run(String[] args) {
      CALLS.add(List.of(args));
      return 0;
    }
  }

  /** Stands in for diagnostics that fail on a host without a GPU. */
  public static final class FailingDiagnostics {
    public static int run(String[] args) {
      throw new IllegalStateException("no CUDA driver");
    }
  }

  /** Stands in for diagnostics whose check failed: exit status 1, said by the diagnostics. */
  public static final class FailedCheckDiagnostics {
    public static int run(String[] args) {
      return 1;
    }
  }

  /** Stands in for diagnostics whose native library is missing: an Error, not an Exception. */
  public static final class UnlinkedDiagnostics {
    public static int run(String[] args) {
      throw new UnsatisfiedLinkError("libcuda.so.1: cannot open shared object file");
    }
  }

  @BeforeEach
  void forgetEarlierCalls() {
    RecordingDiagnostics.CALLS.clear();
  }

  @Test
  void everyArgumentReachesTheDiagnosticsInOrder() {
    CliRun run =
        CliRun.withDiagnostics(
            RecordingDiagnostics.class.getName(),
            Map.of(),
            "diag",
            "--rank",
            "1",
            "--world",
            "2",
            "--store",
            "127.0.0.1:29500",
            "--bench",
            "--samples",
            "50",
            "--json=diag.json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(RecordingDiagnostics.CALLS)
        .containsExactly(
            List.of(
                "--rank",
                "1",
                "--world",
                "2",
                "--store",
                "127.0.0.1:29500",
                "--bench",
                "--samples",
                "50",
                "--json=diag.json"));
  }

  @Test
  void debugIsGpucommsOwnAndNotForwarded() {
    CliRun run =
        CliRun.withDiagnostics(
            RecordingDiagnostics.class.getName(), Map.of(), "diag", "--check", "--debug");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(RecordingDiagnostics.CALLS).containsExactly(List.of("--check"));
  }

  @Test
  void aBuildWithoutTheDiagnosticsSaysSoInOneLine() {
    CliRun run =
        CliRun.withDiagnostics("dev.gpucomm.runtime.cli.NoSuchDiagnostics", Map.of(), "diag");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "gpucomm diag: the CUDA diagnostics are not part of this build (no class"
                + " dev.gpucomm.runtime.cli.NoSuchDiagnostics)"
                + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void theDiagnosticsExitStatusIsTheCommands() {
    CliRun run =
        CliRun.withDiagnostics(FailedCheckDiagnostics.class.getName(), Map.of(), "diag", "--check");

    assertThat(run.exitCode()).isEqualTo(1);
  }

  @Test
  void aMissingNativeLibraryIsSaidByNameNotAsAReflectionWrapper() {
    CliRun run = CliRun.withDiagnostics(UnlinkedDiagnostics.class.getName(), Map.of(), "diag");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("libcuda.so.1").doesNotContain("InvocationTargetException");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void failingDiagnosticsAreAFailureInOneLine() {
    CliRun run =
        CliRun.withDiagnostics(FailingDiagnostics.class.getName(), Map.of(), "diag", "--check");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("gpucomm diag: no CUDA driver" + System.lineSeparator());
  }

  @Test
  void aRankOrWorldThatIsNotOneIsAUsageErrorNamingTheOptionBeforeAnyStoreIsReached() {
    CliRun notANumber =
        CliRun.withDiagnostics(DiagCommand.CUDA_DIAGNOSTICS, Map.of(), "diag", "--rank", "abc");
    CliRun outsideTheWorld =
        CliRun.withDiagnostics(
            DiagCommand.CUDA_DIAGNOSTICS, Map.of(), "diag", "--rank", "5", "--world", "1");
    CliRun hugeWorld =
        CliRun.withDiagnostics(DiagCommand.CUDA_DIAGNOSTICS, Map.of(), "diag", "--world", "100000");

    assertThat(notANumber.exitCode()).as(notANumber.err()).isEqualTo(2);
    assertThat(notANumber.err())
        .isEqualTo("gpucomm diag: --rank: 'abc' is not a whole number" + System.lineSeparator());
    assertThat(outsideTheWorld.exitCode()).isEqualTo(2);
    assertThat(outsideTheWorld.err())
        .isEqualTo("gpucomm diag: --rank: must be from 0 to 0, got 5" + System.lineSeparator());
    assertThat(hugeWorld.exitCode()).isEqualTo(2);
    assertThat(hugeWorld.err())
        .isEqualTo(
            "gpucomm diag: --world: must be from 1 to 64, got 100000" + System.lineSeparator());
  }

  @Test
  void aMistypedOptionOrABadSampleOrTokenCountIsRefusedBeforeAnyStoreIsReached() {
    assertDiagUsageError(
        new String[] {"--chek"},
        "gpucomm diag: unknown option '--chek' (known: --bench --check --json --rank --runners"
            + " --samples --store --timeline --tokens --tune --tune-chunks --world)");
    assertDiagUsageError(
        new String[] {"--bench", "--samples", "-5"},
        "gpucomm diag: --samples: must be from 1 to 100000, got -5");
    assertDiagUsageError(
        new String[] {"--bench", "--samples", "abc"},
        "gpucomm diag: --samples: 'abc' is not a whole number");
    assertDiagUsageError(
        new String[] {"--bench", "--samples", "2000000000"},
        "gpucomm diag: --samples: must be from 1 to 100000, got 2000000000");
    assertDiagUsageError(
        new String[] {"--bench", "--tokens", "64,x"},
        "gpucomm diag: --tokens: 'x' is not a whole number");
    assertDiagUsageError(new String[] {"--json"}, "gpucomm diag: --json needs a value");
  }

  @Test
  void aJsonFileThatCannotBeWrittenIsAUsageErrorBeforeAnyGpuWork(@TempDir Path dir)
      throws Exception {
    Path folder = Files.createDirectory(dir.resolve("kept.json"));
    Path missing = dir.resolve("missing/diag.json");

    assertDiagUsageError(
        new String[] {"--check", "--json", missing.toString()},
        "gpucomm diag: --json " + missing + ": " + dir.resolve("missing") + ": no such file");
    assertDiagUsageError(
        new String[] {"--check", "--json", folder.toString()},
        "gpucomm diag: --json " + folder + ": is a folder");
    assertDiagUsageError(
        new String[] {"--check", "--json", ""}, "gpucomm diag: --json needs a file name");
    assertThat(folder).isDirectory();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aHostWithoutAGpuIsSaidAtOnceNotAfterWaitingForThePeers() {
    assumeFalse(
        new DeviceBackends("diag-test").probe(DeviceKind.CUDA).usable(),
        "this host has a GPU: diag would run");
    long start = System.nanoTime();

    // rank 1 of 2: its peer, and the store, never come
    CliRun run =
        CliRun.withDiagnostics(
            DiagCommand.CUDA_DIAGNOSTICS,
            Map.of(),
            "diag",
            "--check",
            "--world",
            "2",
            "--rank",
            "1",
            "--store",
            "127.0.0.1:1");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("gpucomm diag: no CUDA device: ");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  private static void assertDiagUsageError(String[] args, String line) {
    String[] command = new String[args.length + 1];
    command[0] = "diag";
    System.arraycopy(args, 0, command, 1, args.length);
    CliRun run = CliRun.withDiagnostics(DiagCommand.CUDA_DIAGNOSTICS, Map.of(), command);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(line + System.lineSeparator());
  }

  @Test
  void theDiagnosticsAreLookedUpWhereTheCudaModuleKeepsThem() {
    assertThat(DiagCommand.CUDA_DIAGNOSTICS)
        .isEqualTo("dev.gpucomm.runtime.collective.cuda.lab.CudaDiagnostics");
  }
}
