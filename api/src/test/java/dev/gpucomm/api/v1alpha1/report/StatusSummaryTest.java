package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusSummaryTest {
  @Test
  void oneRowPerSizeWithChoiceBestAndSpeedup() {
    List<SizeSummary> rows = StatusSummary.of(Reports.h200());

    assertThat(rows).hasSize(4);
    SizeSummary first = rows.getFirst();
    assertThat(first.getCollective()).isEqualTo("allreduce");
    assertThat(first.getBytes()).isEqualTo(524288L);
    assertThat(first.getTokens()).isEqualTo(32);
    assertThat(first.getChosen()).isEqualTo("oneshot");
    assertThat(first.getBest()).isEqualTo("twoshot");
    assertThat(first.getLatencyMicros()).isEqualTo(8.9);
    assertThat(first.getChosenLatencyMicros()).isEqualTo(12.0);
    assertThat(first.getSpeedupVsNccl()).isCloseTo(16.6 / 8.9, within(1e-12));
    assertThat(first.getBusBandwidthGBps()).isCloseTo(524288 / 8.9e3 * 1.5, within(1e-9));
  }

  @Test
  void onTheCpuBackendTheSpeedupIsOverRing() {
    SizeSummary last = StatusSummary.of(Reports.cpu()).getLast();

    assertThat(last.getBest()).isEqualTo("ring");
    assertThat(last.getSpeedupVsNccl()).isEqualTo(1.0);
    assertThat(last.getTokens()).isNull();
  }
}
