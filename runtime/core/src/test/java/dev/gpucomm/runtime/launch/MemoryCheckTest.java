package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.JobMemory;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.workload.RankMemory;
import org.junit.jupiter.api.Test;

class MemoryCheckTest {
  private static final String RING_MILLION_TOKENS =
      """
      apiVersion: gpucomm.dev/v1alpha1
      kind: CommJob
      metadata: {name: big}
      spec:
        worldSize: 4
        device: cpu
        workload:
          kind: benchmark
          benchmark: {tokens: [1000000], hiddenSize: 1024, dtype: bf16, algorithms: [ring]}
      """;

  private static final long GIB = 1L << 30;

  private final RankMemory millionTokens =
      JobMemory.of(new JobLoader().load(RING_MILLION_TOKENS, "big.yaml").job(), DeviceKind.CPU);

  @Test
  void aSweepCountsItsLargestPointsBuffersOnDeviceAndHost() {
    assertThat(millionTokens.what()).isEqualTo("the sweep's largest message (1.91 GiB per rank)");
    assertThat(millionTokens.deviceBytes()).isEqualTo(2 * 2_048_000_000L);
    assertThat(millionTokens.hostBytes()).isEqualTo(2 * 2_048_000_000L);
    assertThat(millionTokens.hostBytesWithDevice()).isEqualTo(4 * 2_048_000_000L);
  }

  @Test
  void fourCpuRanksOfAMillionTokensDoNotFitA23GibHostAndAreRefusedWithTheNumbers() {
    assertThatThrownBy(
            () ->
                MemoryCheck.requireHostRoom(
                    "big.yaml", millionTokens, millionTokens.hostBytesWithDevice(), 0, 4, 23 * GIB))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "big.yaml: the sweep's largest message (1.91 GiB per rank) needs 7.63 GiB of host"
                + " memory per rank, 30.52 GiB for the 4 ranks on this host, and 23 GiB is"
                + " available");
  }

  @Test
  void aSweepThatFitsPasses() {
    assertThatNoException()
        .isThrownBy(
            () ->
                MemoryCheck.requireHostRoom(
                    "big.yaml",
                    millionTokens,
                    millionTokens.hostBytesWithDevice(),
                    256L << 20,
                    2,
                    23 * GIB));
  }

  @Test
  void aWorldOfThousandsOfRanksOfATinySweepIsRefusedForTheirProcesses() {
    RankMemory tiny = new RankMemory("the sweep's largest message (16 B per rank)", 32, 32);

    assertThatThrownBy(
            () -> MemoryCheck.requireHostRoom("bench", tiny, 64, 256L << 20, 4096, 23 * GIB))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "bench: the 4096 ranks on this host need 1024 GiB of host memory, each rank's process"
                + " (about 256 MiB) with its buffers (64 B), and 23 GiB is available");
  }

  @Test
  void aDeviceWithTooLittleFreeMemoryIsNamed() {
    assertThatThrownBy(
            () -> MemoryCheck.requireDeviceRoom("big.yaml", millionTokens, 3, "NVIDIA H100", GIB))
        .hasMessage(
            "big.yaml: the sweep's largest message (1.91 GiB per rank) needs 3.81 GiB of device"
                + " memory on rank 3, and its device (NVIDIA H100) has 1 GiB free");
  }

  @Test
  void aFabricSweepCountsItsProbesTwoBuffers() {
    RankMemory fabric =
        onTwoCpuRanks(
            """
            kind: fabric
            fabric: {bytes: 1073741824}
            """);

    assertThat(fabric.what()).isEqualTo("the fabric probe's two buffers of 1 GiB");
    assertThat(fabric.deviceBytes()).isEqualTo(2 * GIB);
  }

  /** One rank's memory in a job of two CPU ranks running {@code workload} (YAML, unindented). */
  private static RankMemory onTwoCpuRanks(String workload) {
    String job =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata: {name: job}
        spec:
          worldSize: 2
          device: cpu
          workload:
        """
            + workload.indent(4);
    return JobMemory.of(new JobLoader().load(job, "job.yaml").job(), DeviceKind.CPU);
  }

  @Test
  void memAvailableIsReadFromMeminfo() {
    assertThat(
            MemoryCheck.availableIn(
                "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n"))
        .hasValue(20_000_000L * 1024);
    assertThat(MemoryCheck.availableIn("MemTotal: 1 kB\n")).isEmpty();
  }
}
