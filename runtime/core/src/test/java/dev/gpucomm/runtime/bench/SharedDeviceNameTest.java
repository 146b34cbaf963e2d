package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A job whose pods landed on two GPU models follows rank 0's model's curves on every rank. */
class SharedDeviceNameTest {
  @Test
  void everyRankGetsRankZerosDeviceModel() {
    InMemoryStore store = new InMemoryStore();

    String onRankZero =
        SharedDeviceName.agree("NVIDIA H200", store, "sweep/device", 0, Duration.ofSeconds(1));
    String onRankOne =
        SharedDeviceName.agree(
            "NVIDIA H100 80GB HBM3", store, "sweep/device", 1, Duration.ofSeconds(1));

    assertThat(onRankZero).isEqualTo("NVIDIA H200");
    assertThat(onRankOne).isEqualTo("NVIDIA H200");
  }
}
