package dev.gpucomm.api.v1alpha1.report;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import dev.gpucomm.api.v1alpha1.SizeSummary;
import org.junit.jupiter.api.Test;

class ReportSummaryTest {
  @Test
  void eachSizeBecomesARowWithTheFastestAlgorithmAndItsSpeedupOverNccl() throws Exception {
    ReportSummary summary =
        ReportSummary.read(
            TestReports.allreduce("ar")
                .size(
                    524288,
                    32,
                    "oneshot",
                    timing("auto", 7.0, 6.1, 80.0),
                    timing("nccl", 14.0, 12.2, 40.0),
                    timing("oneshot", 7.1, 6.0, 81.0),
                    timing("twoshot", 9.0, 8.0, 60.0))
                .size(
                    67108864,
                    4096,
                    "twoshot",
                    timing("auto", 300.0, null, 390.0),
                    timing("nccl", 330.0, null, 350.0),
                    timing("twoshot", 298.0, null, 392.0))
                .json(),
            "ar-results report.json");

    assertThat(summary.collective()).isEqualTo("allreduce");
    // graph medians where measured, eager ones otherwise; the chosen algorithm's own time
    assertThat(summary.sizes())
        .extracting("bytes", "tokens", "chosen", "best", "latencyMicros", "chosenLatencyMicros")
        .containsExactly(
            tuple(524288L, 32, "oneshot", "oneshot", 6.0, 6.0),
            tuple(67108864L, 4096, "twoshot", "twoshot", 298.0, 298.0));
    SizeSummary small = summary.sizes().get(0);
    assertThat(small.getSpeedupVsNccl()).isEqualTo(12.2 / 6.0);
    // nccl-tests: busbw = bytes / time x 2(n-1)/n for all-reduce on 8 ranks
    assertThat(small.getBusBandwidthGBps()).isCloseTo(524288 / 6.0e3 * 1.75, within(1e-9));
    assertThat(summary.bestAtLargestSize()).contains("twoshot");
    assertThat(summary.figures()).hasSize(7);
    assertThat(summary.figures().get(0))
        .isEqualTo(new AlgorithmFigure(524288, "auto", 6.1, 524288 / 6.1e3 * 1.75));
  }

  @Test
  void autoIsNotTheBestWhenTheAlgorithmItRanWasMeasuredToo() throws Exception {
    ReportSummary summary =
        ReportSummary.read(
            TestReports.allreduce("ar")
                .size(
                    1024,
                    null,
                    "oneshot",
                    timing("auto", 4.0, null, 1.0),
                    timing("oneshot", 4.2, null, 1.0))
                .json(),
            "r");
    assertThat(summary.sizes().get(0).getBest()).isEqualTo("oneshot");
    assertThat(summary.sizes().get(0).getTokens()).isNull();
  }

  @Test
  void aRunOfAutoAloneIsSummarizedByAutosTimes() throws Exception {
    // a gate on what the heuristic picks measures auto only; it must still have a latency
    ReportSummary summary =
        ReportSummary.read(
            TestReports.allreduce("ar")
                .size(1024, null, "oneshot", timing("auto", 4.0, 3.5, 1.0))
                .json(),
            "r");
    assertThat(summary.sizes().get(0).getBest()).isEqualTo("auto");
    assertThat(summary.sizes().get(0).getLatencyMicros()).isEqualTo(3.5);
  }

  @Test
  void aReportOfAnotherSchemaVersionIsRefusedNamingTheFile() {
    assertThatThrownBy(
            () ->
                ReportSummary.read(
                    "{\"schemaVersion\": 2, \"sizes\": []}", "ar-results report.json"))
        .isInstanceOf(ReportFormatException.class)
        .hasMessage(
            "report ar-results report.json: field schemaVersion: version 2 is not one this"
                + " gpucomm reads (1 to 1)");
  }

  @Test
  void aProgramReportHasNoPerSizeRows() {
    ReportSummary summary = ReportSummary.read(ReportJson.write(Reports.program()), "r");
    assertThat(summary.sizes()).isEmpty();
    assertThat(summary.bestAtLargestSize()).isEmpty();
  }

  @Test
  void textThatIsNotJsonIsRefusedNamingTheFile() {
    assertThatThrownBy(() -> ReportSummary.read("| size | nccl |", "ar-results report.json"))
        .isInstanceOf(ReportFormatException.class)
        .hasMessageStartingWith("report ar-results report.json: not valid JSON");
  }

  @Test
  void aMeasurementWithoutTimingIsRefusedNamingIt() {
    String json =
        TestReports.allreduce("ar")
            .size(1024, null, "nccl", timing("nccl", 10.0, null, 1.0))
            .json()
            .replace("\"eagerMicros\":10.0,", "");
    assertThatThrownBy(() -> ReportSummary.read(json, "r"))
        .isInstanceOf(ReportFormatException.class)
        .hasMessage("report r: field sizes[0].measurements[0].eagerMicros: missing");
  }
}
