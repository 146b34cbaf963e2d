package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.DeviceBackends.Probe;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which device a local run picks, on hosts of no, too few and enough GPUs. */
class DeviceChoiceTest {
  private static final CpuBackend CPU = new CpuBackend();

  private final ByteArrayOutputStream notes = new ByteArrayOutputStream();

  @Test
  void aJobOfMoreRanksThanTheHostHasGpusRunsOnTheCpuWithANoteSayingWhy() {
    DeviceKind kind = choiceOnHostWith(1).resolve("run", Optional.empty(), job("", 2));

    assertThat(kind).isEqualTo(DeviceKind.CPU);
    assertThat(notes())
        .isEqualTo(
            "gpucomm run: 2 ranks need 2 GPUs and this host has 1; running on the CPU backend"
                + " (pass --device to choose)\n");
  }

  @Test
  void aJobOfAsManyRanksAsTheHostHasGpusRunsOnThem() {
    assertThat(choiceOnHostWith(2).resolve("run", Optional.empty(), job("", 2)))
        .isEqualTo(DeviceKind.CUDA);
    assertThat(notes()).isEmpty();
  }

  @Test
  void aHostWithoutGpusRunsOnTheCpuWithANoteSayingWhy() {
    assertThat(choiceOnHostWith(0).resolve("bench", Optional.empty(), job("", 2)))
        .isEqualTo(DeviceKind.CPU);
    assertThat(notes()).startsWith("gpucomm bench: no GPU here (no NVIDIA driver);");
  }

  @Test
  void askingForMoreGpusThanTheHostHasIsAUsageErrorNamingTheField() {
    DeviceChoice choice = choiceOnHostWith(1);

    assertThatThrownBy(() -> choice.resolve("run", Optional.of(DeviceKind.CUDA), job("", 2)))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "job.yaml: spec.worldSize: 2 ranks need 2 GPUs on this host, which has 1 (local runs"
                + " put every rank here)");
    assertThatThrownBy(() -> choice.resolve("run", Optional.empty(), job("  device: cuda\n", 2)))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("job.yaml: spec.worldSize: 2 ranks need 2 GPUs");
  }

  @Test
  void aJobBuiltFromFlagsIsToldWithTheFlagThatSetItsWorld() {
    DeviceChoice choice = choiceOnHostWith(1);
    LoadedJob fromFlags =
        job("", 2).withFieldSpelling(new FlagSpelling(Map.of("spec.worldSize", "--world")));

    assertThatThrownBy(() -> choice.resolve("selftest", Optional.of(DeviceKind.CUDA), fromFlags))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("job.yaml: --world: 2 ranks need 2 GPUs");
  }

  /** A host whose CUDA backend finds {@code gpus} devices (the CPU backend stands in for it). */
  private DeviceChoice choiceOnHostWith(int gpus) {
    return new DeviceChoice(
        kind ->
            switch (kind) {
              case CPU -> new Probe(kind, CPU, 1, "");
              case CUDA ->
                  gpus > 0
                      ? new Probe(kind, CPU, gpus, "")
                      : new Probe(kind, null, 0, "no NVIDIA driver");
            },
        new PrintStream(notes, true, StandardCharsets.UTF_8));
  }

  private static LoadedJob job(String deviceLine, int worldSize) {
    String yaml =
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: sweep
        spec:
          worldSize: %d
          ranksPerPod: %d
        %s  workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              sizes: [1024]
        """
            .formatted(worldSize, worldSize, deviceLine);
    return new JobLoader().load(yaml, "job.yaml");
  }

  private String notes() {
    return notes.toString(StandardCharsets.UTF_8);
  }
}
