package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedMemoryLeftoversTest {
  @TempDir Path shm;

  @Test
  void onlyTheFilesOfTheDeadProcessAreRemoved() throws Exception {
    Path dead0 = Files.createFile(shm.resolve("gpucomm-sweep-l0-p4242-1"));
    Path dead1 = Files.createFile(shm.resolve("gpucomm-sweep-2-l1-p4242-17"));
    // the CUDA backend's host staging, named alike
    Path deadStaging =
        Files.createFile(
            shm.resolve("gpucomm-host-5f0e6c2a-9d1b-4a7e-8c3f-2b6d1e0a9f47-l1-p4242-0"));
    Path alive = Files.createFile(shm.resolve("gpucomm-sweep-l1-p42420-1"));
    Path otherJob = Files.createFile(shm.resolve("gpucomm-sweep-l0-p14242-1"));
    Path notOurs = Files.createFile(shm.resolve("nccl-p4242-1"));

    assertThat(SharedMemoryLeftovers.removeFilesOf(shm, 4242)).isEqualTo(3);

    assertThat(dead0).doesNotExist();
    assertThat(dead1).doesNotExist();
    assertThat(deadStaging).doesNotExist();
    assertThat(alive).exists();
    assertThat(otherJob).exists();
    assertThat(notOurs).exists();
  }
}
