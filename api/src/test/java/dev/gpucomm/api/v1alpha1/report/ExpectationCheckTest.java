package dev.gpucomm.api.v1alpha1.report;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.Expectation;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpectationCheckTest {
  // 8 ranks, 1 MiB: oneshot fastest at 10 us (183.5 GB/s bus bandwidth), nccl at 20 us
  private static final ReportSummary REPORT =
      ReportSummary.read(
          TestReports.allreduce("accept")
              .size(
                  1 << 20,
                  null,
                  "oneshot",
                  timing("nccl", 20.0, null, 1.0),
                  timing("oneshot", 10.0, null, 1.0))
              .json(),
          "report.json");

  @Test
  void aClusterThatReachesItsFloorsMeetsExpectations() {
    ExpectationVerdict verdict =
        ExpectationCheck.verdict(
            List.of(
                rule("1Mi").withMinBusBandwidthGBps(180.0),
                rule("1048576").withMaxLatencyMicros(10.0)),
            REPORT);

    assertThat(verdict.status()).isEqualTo("True");
    assertThat(verdict.reason()).isEqualTo("AllExpectationsMet");
    assertThat(verdict.message()).isEqualTo("all 2 rules met");
  }

  @Test
  void aFloorNotReachedIsNamedWithTheMeasuredFigure() {
    ExpectationVerdict verdict =
        ExpectationCheck.verdict(
            List.of(
                rule("1Mi").withMinBusBandwidthGBps(350.0),
                rule("1Mi").withAlgorithm(Algorithm.NCCL).withMaxLatencyMicros(15.0)),
            REPORT);

    assertThat(verdict.status()).isEqualTo("False");
    assertThat(verdict.reason()).isEqualTo("ExpectationsNotMet");
    assertThat(verdict.message())
        .isEqualTo(
            "2 of 2 rules not met: spec.expect[0] (allreduce 1Mi): oneshot reached 183.5 GB/s,"
                + " below 350 GB/s; spec.expect[1] (allreduce 1Mi nccl): nccl took 20.00 us,"
                + " above 15 us");
  }

  @Test
  void aRuleWhoseFigureWasNotMeasuredGivesNoVerdict() {
    ExpectationVerdict verdict =
        ExpectationCheck.verdict(List.of(rule("2Mi").withMinBusBandwidthGBps(1.0)), REPORT);

    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("ExpectationNotMeasured");
    assertThat(verdict.message()).isEqualTo("spec.expect[0] (allreduce 2Mi): not measured");
  }

  private static Expectation rule(String bytes) {
    return new Expectation().withCollective(Collective.ALLREDUCE).withBytes(bytes);
  }
}
