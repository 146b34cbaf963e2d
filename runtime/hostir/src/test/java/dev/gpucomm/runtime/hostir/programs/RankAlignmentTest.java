package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RankAlignmentTest {
  @Test
  void runsAreLinedUpUnlessTurnedOff() {
    assertThat(RankAlignment.wanted(Map.of())).isTrue();
    assertThat(RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "on"))).isTrue();
    assertThat(RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "off"))).isFalse();
  }

  @Test
  void anotherValueIsNamedInOneLine() {
    assertThatThrownBy(() -> RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "no")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GPUCOMM_PROGRAM_ALIGN must be on or off, got 'no'");
  }
}
