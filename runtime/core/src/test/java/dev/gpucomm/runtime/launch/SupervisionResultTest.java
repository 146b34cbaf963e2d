package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SupervisionResultTest {
  @Test
  void oneRankIsCountedInTheSingular() {
    assertThat(new SupervisionResult.Succeeded(1).message()).isEqualTo("1 rank finished");
    assertThat(new SupervisionResult.Succeeded(4).message()).isEqualTo("4 ranks finished");
  }
}
