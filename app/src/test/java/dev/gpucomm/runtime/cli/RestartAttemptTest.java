package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The run a rank's pod belongs to, which rank 0 stamps on the report it publishes. */
class RestartAttemptTest {
  @Test
  void theOperatorsAttemptIsTakenAndNoneOutsideACluster() {
    assertThat(RankCommand.restartAttempt(Map.of("GPUCOMM_RESTART_ATTEMPT", "2")))
        .isEqualTo(OptionalInt.of(2));
    assertThat(RankCommand.restartAttempt(Map.of())).isEmpty();
  }

  @Test
  void anAttemptThatIsNoneIsAUsageErrorNamingTheVariable() {
    for (String bad : new String[] {"-1", "٢", "two", "99999999999"}) {
      assertThatThrownBy(() -> RankCommand.restartAttempt(Map.of("GPUCOMM_RESTART_ATTEMPT", bad)))
          .isInstanceOf(UsageException.class)
          .hasMessage(
              "GPUCOMM_RESTART_ATTEMPT: " + bad + " is not a restart attempt (0, 1, 2 ...)");
    }
  }
}
