package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuBindModeTest {
  @Test
  void ranksAreBoundUnlessTheEnvironmentSaysNone() {
    assertThat(CpuBindMode.fromEnv(Map.of())).isEqualTo(CpuBindMode.CORE);
    assertThat(CpuBindMode.fromEnv(Map.of("GPUCOMM_CPU_BIND", ""))).isEqualTo(CpuBindMode.CORE);
    assertThat(CpuBindMode.fromEnv(Map.of("GPUCOMM_CPU_BIND", "core"))).isEqualTo(CpuBindMode.CORE);
    assertThat(CpuBindMode.fromEnv(Map.of("GPUCOMM_CPU_BIND", "none"))).isEqualTo(CpuBindMode.NONE);
  }

  @Test
  void aMisspelledModeIsRefusedNamingTheVariableAndTheChoices() {
    assertThatThrownBy(() -> CpuBindMode.fromEnv(Map.of("GPUCOMM_CPU_BIND", "off")))
        .isInstanceOf(UsageException.class)
        .hasMessage("GPUCOMM_CPU_BIND: unknown value 'off' (expected core, none)");
  }
}
