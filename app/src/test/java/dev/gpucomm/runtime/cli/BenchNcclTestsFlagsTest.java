package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * nccl-tests' sweep flags on bench: mixed with bench's own way of naming the same thing, or making
 * no sweep, they are usage errors (exit code 2, one line naming the flag, nothing written).
 */
class BenchNcclTestsFlagsTest {
  private static void assertUsageError(CliRun run, String line) {
    assertThat(run.exitCode()).as("exit code of: " + run.err()).isEqualTo(2);
    assertThat(run.err()).isEqualTo(line + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void sizeFlagsBesideSizesOrTokensAreRefused() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "8", "-e", "1M", "--sizes", "4K"),
        "gpucomm bench: -b: give nccl-tests' -b/-e/-f/-i or --sizes, not both");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-f", "2", "--tokens", "32"),
        "gpucomm bench: -f: give nccl-tests' -b/-e/-f/-i or --tokens, not both");
  }

  @Test
  void iterationFlagsBesideTheirTwinsAreRefused() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-n", "20", "--iterations", "20"),
        "gpucomm bench: -n: give --iterations or -n, not both");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-w", "5", "--warmup", "5"),
        "gpucomm bench: -w: give --warmup or -w, not both");
  }

  @Test
  void sweepsThatCannotRunAreRefusedNamingTheFlag() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "1M", "-e", "4K", "-f", "2"),
        "gpucomm bench: -e: 4096 is below the minimum size 1048576 (-b)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "16", "-e", "2K", "-i", "16"),
        "gpucomm bench: -i: the sweep has more than 64 sizes; raise -f or -i, or lower -e");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "2", "-e", "8", "-f", "2"),
        "gpucomm bench: -e: no size of the sweep can run: 2 B (2 B per rank is not a whole number"
            + " of 16-byte vectors), 4 B (4 B per rank is not a whole number of 16-byte vectors),"
            + " 8 B (8 B per rank is not a whole number of 16-byte vectors)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--world", "2", "-b", "16G", "-e", "16G"),
        "gpucomm bench: -e: no size of the sweep can run: 17179869184 B (17179869184 B per rank"
            + " is above the 8 GiB a rank may move)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "1X"),
        "gpucomm bench: -b: '1X' is not a size (e.g. 4096, 64K, 1M)");
  }

  @Test
  void aSweepOfHalfABillionStepsIsRefusedBeforeItsSizesAreListed() {
    // Listing every size first took the heap (6 GB) before the length check ran.
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "16", "-e", "8G", "-i", "16"),
        "gpucomm bench: -i: the sweep has more than 64 sizes; raise -f or -i, or lower -e");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-b", "1", "-e", "8G", "-i", "1"),
        "gpucomm bench: -i: the sweep has more than 64 sizes; raise -f or -i, or lower -e");
  }

  @Test
  void theSizesASweepSkipsAreNamedOnOneLineOfBoundedLength() {
    List<String> skipped = IntStream.rangeClosed(1, 4_000).mapToObj(i -> i + " B (odd)").toList();

    assertThat(NcclTestsFlags.firstOf(skipped, 3))
        .isEqualTo("1 B (odd), 2 B (odd), 3 B (odd) and 3997 more");
    assertThat(NcclTestsFlags.firstOf(skipped.subList(0, 2), 3)).isEqualTo("1 B (odd), 2 B (odd)");
  }

  @Test
  void checkZeroIsRefusedBecauseEveryPointIsChecked() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-c", "0"),
        "gpucomm bench: -c: gpucomm checks every point's results; give 1 or more (got 0)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-c", "-5"),
        "gpucomm bench: -c: gpucomm checks every point's results; give 1 or more (got -5)");
  }

  @Test
  void aProblemWithFlagFilledFieldsNamesTheFlagTheUserTyped() {
    assertUsageError(
        CliRun.of(
            "bench",
            "--device",
            "cpu",
            "--pattern",
            "allreduceResidualRmsNorm",
            "-b",
            "16",
            "-e",
            "64",
            "-f",
            "2"),
        "gpucomm bench: -b: 16 bytes is not a whole number of tokens of hiddenSize 8192 bf16"
            + " (16384 bytes each), which RMSNorm needs");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--heuristic", "fixed", "--fixed", "auto"),
        "gpucomm bench: --fixed: auto cannot be fixed (name an algorithm)");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--no-fp32-accumulate"),
        "gpucomm bench: --no-fp32-accumulate: applies to the fused patterns only, not"
            + " allreduce");
  }

  @Test
  void anIterationCountOutOfRangeNamesTheFlagItCameFrom() {
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-n", "0"),
        "gpucomm bench: -n: 0 is outside 1..1000000");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "-w", "-1"),
        "gpucomm bench: -w: -1 is outside 0..100000");
    assertUsageError(
        CliRun.of("bench", "--device", "cpu", "--iterations", "0"),
        "gpucomm bench: --iterations: 0 is outside 1..1000000");
  }
}
