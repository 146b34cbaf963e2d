package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Reports;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wording rules of report.md and the plot: each figure says once what it is, and no more. */
class ReportWordingTest {
  private static SizeResult oneshotAndTwoshotOnly() {
    return new SizeResult(
        16384,
        null,
        Algorithm.ONESHOT,
        "bytes 16384 → oneshot",
        List.of(
            Reports.measured(Algorithm.ONESHOT, 16384, 30.0, 29.0),
            Reports.measured(Algorithm.TWOSHOT, 16384, 16.0, 15.0)));
  }

  @Test
  void aCpuDeviceWhoseNameStartsWithCpuIsNamedOnce() {
    String md =
        ReportMarkdown.write(
            Reports.report(List.of(oneshotAndTwoshotOnly()), "cpu", "cpu (2 cores)"));

    assertThat(md).contains("· cpu (2 cores) ·").doesNotContain("cpu (cpu");
  }

  @Test
  void oneRankPerPodIsSingular() {
    BenchmarkReport four = Reports.report(List.of(oneshotAndTwoshotOnly()), "cpu", null);
    BenchmarkReport one =
        new BenchmarkReport(
            four.schemaVersion(),
            four.job(),
            four.collective(),
            four.dtype(),
            four.hiddenSize(),
            four.inPlace(),
            1,
            1,
            four.device(),
            four.deviceName(),
            four.host(),
            four.heuristic(),
            four.startedAt(),
            four.sizes());

    assertThat(ReportMarkdown.write(four)).contains(" · 4 ranks per pod · ");
    assertThat(ReportMarkdown.write(one))
        .contains(" · 1 rank per pod · ")
        .doesNotContain("1 ranks");
  }

  @Test
  void aGpuKeepsItsKindBesideItsName() {
    assertThat(ReportMarkdown.write(Reports.h200())).contains("· cuda (NVIDIA H200) ·");
  }

  @Test
  void withoutAnNcclOrRingColumnTheBestColumnPromisesNoSpeedup() {
    String md = ReportMarkdown.write(Reports.report(List.of(oneshotAndTwoshotOnly()), "cpu", null));

    assertThat(md)
        .doesNotContain("Speedup vs")
        .contains("| Tensor Shape | Tensor Size | oneshot | twoshot | Best | Heuristic choice |");
  }

  @Test
  void cpuRunsSayTheirFiguresShowTheFlowNotGpuPerformance() {
    String cpu = ReportMarkdown.write(Reports.cpu());
    String gpu = ReportMarkdown.write(Reports.h200());

    assertThat(cpu).contains(ReportMarkdown.hostFlowNote("cpu")).doesNotContain("CUDA-graph");
    assertThat(gpu).doesNotContain("not GPU performance");
  }

  @Test
  void theTableSaysItsCellsAreTheSlowestRanksMedianUnlikeTheProgressLines() {
    String note =
        "Each cell is the slowest rank's median (the progress lines print one rank's own).";
    assertThat(ReportMarkdown.write(Reports.cpu())).contains(note);
    assertThat(ReportMarkdown.summary(Reports.cpu()))
        .as("the table printed right under the progress lines")
        .contains(note);
  }

  @Test
  void thePlotNamesTheChoiceMarkerWithoutUsingAnAlgorithmsName() {
    String cpuPlot =
        LatencyPlotSvg.write(Reports.report(List.of(oneshotAndTwoshotOnly()), "cpu", null));
    String gpuPlot = LatencyPlotSvg.write(Reports.h200());

    assertThat(cpuPlot)
        .doesNotContain("ring:")
        .doesNotContain("CUDA-graph")
        .contains("circled: trtllm&apos;s choice")
        .contains("shows the flow, not GPU performance");
    assertThat(gpuPlot).contains("CUDA-graph replay where measured").doesNotContain("ring:");
  }
}
