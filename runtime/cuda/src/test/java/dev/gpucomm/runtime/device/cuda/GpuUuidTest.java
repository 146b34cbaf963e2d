package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class GpuUuidTest {
  @Test
  void writesTheUuidAsNvidiaSmiDoes() {
    byte[] bytes = HexFormat.of().parseHex("6a1c2f0e9b7d4e3a8c5f1d2e3f4a5b6c");

    assertThat(GpuUuid.format(bytes)).isEqualTo("GPU-6a1c2f0e-9b7d-4e3a-8c5f-1d2e3f4a5b6c");
  }

  @Test
  void refusesBytesThatAreNotAUuid() {
    assertThatThrownBy(() -> GpuUuid.format(new byte[4])).hasMessageContaining("16 bytes");
  }
}
