package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.rendezvous.RunId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
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
          GPUCOMM_RUN_ID     | job 7   | GPUCOMM_RUN_ID: character 4 (U+0020) is not a letter, digit or . _ : / -
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

  @Test
  void theRunALauncherGivesARankReachesIt() {
    RankSettings settings = RankSettings.fromEnv(rankZeroOfTwo(EnvVars.RUN_ID, "uid-42/3"));

    assertThat(settings.run()).isEqualTo(new RunId("uid-42/3"));
    assertThat(RankSettings.fromEnv(settings.toEnv()).run()).isEqualTo(settings.run());
  }

  @Test
  void aRankStartedByHandWithoutARunNamesNone() {
    RankSettings settings = RankSettings.fromEnv(rankZeroOfTwo(EnvVars.PROGRESS, "off"));

    assertThat(settings.run()).isEqualTo(RunId.NONE);
    assertThat(settings.toEnv()).doesNotContainKey(EnvVars.RUN_ID);
  }

  @Test
  void aRunIdLongerThanAStoreTakesIsRefused() {
    String tooLong = "r".repeat(RunId.MAX_LENGTH + 1);

    assertThatThrownBy(() -> RankSettings.fromEnv(rankZeroOfTwo(EnvVars.RUN_ID, tooLong)))
        .isInstanceOf(UsageException.class)
        .hasMessage("GPUCOMM_RUN_ID: 257 characters, more than the 256 allowed");
  }
}
