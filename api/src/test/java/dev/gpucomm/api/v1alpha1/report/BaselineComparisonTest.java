package dev.gpucomm.api.v1alpha1.report;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BaselineComparisonTest {
  @Test
  void aSizeSlowerByExactlyTheLimitIsNotARegression() throws Exception {
    RegressionVerdict verdict =
        BaselineComparison.verdict("base", 10, report(1024, 11.0), report(1024, 10.0));
    assertThat(verdict.status()).isEqualTo("False");
    assertThat(verdict.reason()).isEqualTo("WithinBaseline");
  }

  @Test
  void aSizeSlowerByMoreThanTheLimitIsNamed() throws Exception {
    RegressionVerdict verdict =
        BaselineComparison.verdict("base", 2.5, report(1024, 10.3), report(1024, 10.0));
    assertThat(verdict.status()).isEqualTo("True");
    assertThat(verdict.message())
        .isEqualTo(
            "1 of 1 sizes slower than baseline base by more than 2.5% (best latency per size):"
                + " 1024 B +3.0% (10.00 -> 10.30 us)");
  }

  @Test
  void reportsWithoutACommonSizeCannotBeCompared() throws Exception {
    RegressionVerdict verdict =
        BaselineComparison.verdict("base", 5, report(1024, 10.0), report(2048, 10.0));
    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("NoCommonSizes");
  }

  @Test
  void aBaselineSizeThisRunDidNotMeasureLeavesNoVerdict() throws Exception {
    ReportSummary baseline = baselineOf1024And4096();
    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, report(1024, 10.0), baseline);
    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("MissingSizes");
    assertThat(verdict.message()).isEqualTo("1 of baseline base's sizes were not measured: 4096 B");
  }

  @Test
  void aSlowerSizeIsARegressionEvenWhenAnotherIsMissing() throws Exception {
    ReportSummary baseline = baselineOf1024And4096();
    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, report(1024, 12.0), baseline);
    assertThat(verdict.status()).isEqualTo("True");
  }

  @Test
  void aBaselineOfAnotherSetupIsNotComparedWith() throws Exception {
    ReportSummary eagerOnly = report(1024, 10.0);
    ReportSummary withGraphs =
        ReportSummary.read(
            TestReports.allreduce("j")
                .size(1024, null, "nccl", timing("nccl", 12.0, 8.0, 1.0))
                .json(),
            "r");
    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, eagerOnly, withGraphs);
    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("NotComparable");
    assertThat(verdict.message())
        .isEqualTo(
            "the report measures allreduce bf16 on 8 ranks (cuda, eager times), baseline base"
                + " measures allreduce bf16 on 8 ranks (cuda, CUDA-graph times)");
  }

  @Test
  void theSetupOfACpuRunOnOneRankIsWordedForWhatItIs() throws Exception {
    ReportSummary cpu =
        ReportSummary.read(
            TestReports.allreduce("j")
                .onOneCpuRank()
                .size(1024, null, "ring", timing("ring", 12.0, 8.0, 1.0))
                .json(),
            "r");
    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, cpu, report(1024, 10.0));
    assertThat(verdict.message())
        .startsWith(
            "the report measures allreduce bf16 on 1 rank (cpu, graph-replay times), baseline");
  }

  @Test
  void anInPlaceRunIsNotJudgedAgainstAnOutOfPlaceBaseline() throws Exception {
    // in place, NCCL's working set is half as large: 3 % faster at 16 MiB on H200s
    ReportSummary inPlace =
        ReportSummary.read(
            TestReports.allreduce("j")
                .inPlace()
                .size(1024, null, "nccl", timing("nccl", 10.0, null, 1.0))
                .json(),
            "r");
    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, inPlace, report(1024, 10.0));
    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("NotComparable");
    assertThat(verdict.message())
        .isEqualTo(
            "the report measures allreduce bf16 on 8 ranks (cuda, eager times, in place), baseline"
                + " base measures allreduce bf16 on 8 ranks (cuda, eager times)");
  }

  @Test
  void aSlowerNcclIsARegressionEvenWhenAFasterKernelKeepsTheBestLatency() throws Exception {
    // given oneshot fastest in both runs, and NCCL 20% slower now
    ReportSummary baseline =
        ReportSummary.read(
            TestReports.allreduce("j")
                .size(
                    1024,
                    null,
                    "oneshot",
                    timing("nccl", 20.0, null, 1.0),
                    timing("oneshot", 8.0, null, 1.0))
                .json(),
            "r");
    ReportSummary now =
        ReportSummary.read(
            TestReports.allreduce("j")
                .size(
                    1024,
                    null,
                    "oneshot",
                    timing("nccl", 24.0, null, 1.0),
                    timing("oneshot", 8.0, null, 1.0))
                .json(),
            "r");

    RegressionVerdict verdict = BaselineComparison.verdict("base", 5, now, baseline);

    assertThat(verdict.status()).isEqualTo("True");
    assertThat(verdict.reason()).isEqualTo("SlowerThanBaseline");
    assertThat(verdict.message())
        .isEqualTo(
            "all 1 sizes within 5% of baseline base (best latency per size); 1 algorithm figures"
                + " slower by more than 5%: nccl at 1024 B +20.0% (20.00 -> 24.00 us)");
  }

  private ReportSummary baselineOf1024And4096() {
    return ReportSummary.read(
        TestReports.allreduce("j")
            .size(1024, null, "nccl", timing("nccl", 10.0, null, 1.0))
            .size(4096, null, "nccl", timing("nccl", 20.0, null, 1.0))
            .json(),
        "r");
  }

  private ReportSummary report(long bytes, double micros) {
    return ReportSummary.read(
        TestReports.allreduce("j")
            .size(bytes, null, "nccl", timing("nccl", micros, null, 1.0))
            .json(),
        "r");
  }
}
