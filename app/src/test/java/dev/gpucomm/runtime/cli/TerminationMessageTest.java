package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TerminationMessageTest {
  @Test
  void aMessageWithinTheLimitIsKeptWhole() {
    assertThat(LaunchCommand.withinBytes("rank 1 failed", 4096))
        .isEqualTo("rank 1 failed".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aLongMessageIsCutBeforeACharacterItWouldSplit() {
    // "µ" is two bytes in UTF-8: a cut at byte 5 of "abcdµ" would keep half of it
    byte[] cut = LaunchCommand.withinBytes("abcdµs", 5);
    assertThat(new String(cut, StandardCharsets.UTF_8)).isEqualTo("abcd");
    assertThat(LaunchCommand.withinBytes("abcdµs", 6)).hasSize(6);
    assertThat(
            new String(LaunchCommand.withinBytes("x".repeat(5000), 4096), StandardCharsets.UTF_8))
        .hasSize(4096);
  }
}
