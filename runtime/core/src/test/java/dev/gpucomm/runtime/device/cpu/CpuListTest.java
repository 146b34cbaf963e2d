package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuListTest {
  @Test
  void runsOfConsecutiveCpusAreWrittenAsRangesAsLinuxDoes() {
    assertThat(CpuList.format(List.of(0, 1, 2, 3, 8, 10, 11))).isEqualTo("0-3,8,10-11");
    assertThat(CpuList.format(List.of(5))).isEqualTo("5");
    assertThat(CpuList.format(List.of())).isEmpty();
  }
}
