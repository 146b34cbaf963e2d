package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The transports NCCL chose travel in report.json and reach a CommJob's status in a few lines. */
class FabricSectionTest {
  private static final List<RankFabric> TWO_PODS =
      List.of(
          fabric("world", 0, "intra-node p2p; inter-node ib via mlx5_0"),
          fabric("world", 1, "intra-node p2p; inter-node ib via mlx5_0"),
          fabric("across-pods", 0, "inter-node ib via mlx5_0"),
          fabric("across-pods", 1, "inter-node ib via mlx5_0"));

  private static RankFabric fabric(String communicator, int rank, String summary) {
    return new RankFabric(
        communicator,
        rank,
        communicator.equals("world") ? List.of("p2p") : List.of(),
        List.of("ib"),
        List.of("mlx5_0"),
        List.of(),
        summary,
        "");
  }

  @Test
  void aReportWithAFabricSectionReadsBackEqual() {
    BenchmarkReport report = Reports.h200().withFabric(TWO_PODS);

    String json = ReportJson.write(report);

    assertThat(json).contains("\"fabric\" : [", "\"communicator\" : \"across-pods\"");
    assertThat(ReportJson.parse(json, "report.json")).isEqualTo(report);
  }

  @Test
  void aReportWrittenBeforeTheFabricSectionReadsWithAnEmptyOne() {
    String old = ReportJson.write(Reports.h200()).replace(",\n  \"fabric\" : [ ]", "");

    BenchmarkReport report = (BenchmarkReport) ReportJson.parse(old, "old.json");

    assertThat(old).doesNotContain("fabric");
    assertThat(report.fabric()).isEmpty();
  }

  @Test
  void theStatusSummaryHasOneLinePerCommunicatorAndView() {
    ReportSummary summary = ReportSummary.of(Reports.h200().withFabric(TWO_PODS));

    assertThat(summary.transports())
        .containsExactly(
            "world, ranks 0,1: intra-node p2p; inter-node ib via mlx5_0",
            "across-pods, ranks 0,1: inter-node ib via mlx5_0");
    assertThat(ReportSummary.of(Reports.h200()).transports()).isEmpty();
  }
}
