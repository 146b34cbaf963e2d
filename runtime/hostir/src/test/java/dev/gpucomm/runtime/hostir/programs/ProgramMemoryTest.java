package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.JobMemory;
import dev.gpucomm.runtime.launch.MemoryCheck;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.workload.RankMemory;
import org.junit.jupiter.api.Test;

/** What one rank of a program holds, read from the programs it runs, and what the launcher does. */
class ProgramMemoryTest {
  private static final long GIB = 1L << 30;
  private static final long PROCESS = 256L << 20;

  @Test
  void aRowParallelLinearHoldsItsWholeOutputAndEveryChunksPartialOnEachRank() {
    RankMemory rank = onTwoCpuRanks("rowParallelLinear", 40_000, 40_000, 32);

    long inputs = (40_000L * 16 + 16L * 40_000) * 2; // this rank's k-slices of both operands
    long output = 40_000L * 40_000 * 2; // all-reduced: whole on every rank
    assertThat(rank.deviceBytes()).isEqualTo(inputs + output + 2 * (output / 2));
    assertThat(rank.hostBytes()).isEqualTo(inputs + 2 * output);
  }

  @Test
  void aShapeThatCannotFitTheHostIsRefusedBeforeItsRanksStartThoughItsOperandsWould() {
    // its operands are 3 GiB in all, 1.5 GiB a rank: the bound that counted only them let it run
    RankMemory rank = onTwoCpuRanks("rowParallelLinear", 40_000, 40_000, 32);

    assertThatThrownBy(
            () ->
                MemoryCheck.requireHostRoom(
                    "job.yaml", rank, rank.hostBytesWithDevice(), PROCESS, 2, 23 * GIB))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "job.yaml: the program's buffers (5.96 GiB on the device, 5.96 GiB on the host, per"
                + " rank of 2) needs 11.93 GiB of host memory per rank, 23.85 GiB for the 2 ranks on"
                + " this host, and 23 GiB is available");
  }

  @Test
  void aShapeWhoseBytesWouldWrapAroundIsRefusedAllTheSame() {
    // its output alone has 2^64 elements
    RankMemory rank = onTwoCpuRanks("rowParallelLinear", 1L << 32, 1L << 32, 32);

    assertThat(rank.deviceBytes()).isEqualTo(Long.MAX_VALUE);
    assertThat(rank.hostBytes()).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(
            () ->
                MemoryCheck.requireHostRoom(
                    "job.yaml", rank, rank.hostBytesWithDevice(), PROCESS, 2, 23 * GIB))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void aProgramSpecThatCannotRunIsTheJobFilesUsageErrorBeforeAnyRankStarts() {
    assertThatThrownBy(
            () ->
                MemoryCheck.requireRoomForRanks(
                    "job.yaml", job("columnParallelLinear", 3, 16, 32), DeviceKind.CPU, 2))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "job.yaml: spec.workload.program.shape.m: 3 is not a multiple of spec.worldSize (2)");
  }

  private static RankMemory onTwoCpuRanks(String program, long m, long n, long k) {
    return JobMemory.of(job(program, m, n, k), DeviceKind.CPU);
  }

  private static dev.gpucomm.api.v1alpha1.CommJob job(String program, long m, long n, long k) {
    String yaml =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: job}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: program
            program:
              name: %s
              shape: {m: %d, n: %d, k: %d}
        """
            .formatted(program, m, n, k);
    return new JobLoader().load(yaml, "job.yaml").job();
  }
}
