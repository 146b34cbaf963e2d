package dev.gpucomm.runtime.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.launch.RankSettings;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AsciiIntegersTest {
  @Test
  void onlyASignAndAsciiDigitsAreAnInteger() {
    assertThat(AsciiIntegers.parseInt("-12")).isEqualTo(-12);
    assertThat(AsciiIntegers.parseLong("+4096")).isEqualTo(4096L);
    for (String text : new String[] {"\u0662", "1\u0660", "\uff11", "", "1.0", " 1"}) {
      assertThat(AsciiIntegers.is(text)).as(text).isFalse();
      assertThatThrownBy(() -> AsciiIntegers.parseInt(text))
          .isInstanceOf(NumberFormatException.class);
    }
  }

  @Test
  void theLaunchersVariablesTakeAsciiDigitsOnly() {
    assertThatThrownBy(
            () ->
                RendezvousAddress.parse(
                    "store:\u0662\u0669\u0665\u0660\u0660", "GPUCOMM_RENDEZVOUS"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("has no numeric port");
    assertThatThrownBy(() -> RankSettings.fromEnv(Map.of("WORLD_SIZE", "\u0662", "RANK", "0")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is not an integer");
  }
}
