package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A rank's settings from its environment: a switch set to a value it does not know is refused. */
class RankSettingsTest {
  private static Map<String, String> rankZeroOfTwo(String name, String value) {
    Map<String, String> env = new HashMap<>();
    env.put(EnvVars.RANK_WORLD_SIZE, "2");
    env.put(EnvVars.RANK, "0");
    env.put(EnvVars.RENDEZVOUS, "127.0.0.1:29500");
    env.put(name, value);
    return env;
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          GPUCOMM_CPU_VECTOR | 0       | GPUCOMM_CPU_VECTOR: unknown value '0' (expected on, off)
          GPUCOMM_CPU_VECTOR | false   | GPUCOMM_CPU_VECTOR: unknown value 'false' (expected on, off)
          GPUCOMM_PROGRAM_ALIGN | no   | GPUCOMM_PROGRAM_ALIGN: unknown value 'no' (expected on, off)
          GPUCOMM_PROGRESS   | verbose | GPUCOMM_PROGRESS: unknown value 'verbose' (expected live, lines, off)
          GPUCOMM_MODE       | bench   | GPUCOMM_MODE: unknown value 'bench' (expected job, selftest)
          """)
  void anUnknownValueOfASwitchIsAUsageErrorNamingIt(String name, String value, String message) {
    assertThatThrownBy(() -> RankSettings.fromEnv(rankZeroOfTwo(name, value)))
        .isInstanceOf(UsageException.class)
        .hasMessage(message);
  }

  @ParameterizedTest(name = "GPUCOMM_CPU_VECTOR={0}")
  @CsvSource({"on", "off"})
  void theVectorSwitchTakesOnAndOff(String value) {
    RankSettings settings = RankSettings.fromEnv(rankZeroOfTwo("GPUCOMM_CPU_VECTOR", value));

    assertThat(settings.rank()).isZero();
  }
}
