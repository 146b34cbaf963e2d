package dev.gpucomm.api.v1alpha1.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FabricJudgeTest {
  private static final List<String> NODES = List.of("node-a", "node-b", "node-c", "node-d");

  @Test
  void aNodeSlowWithEveryPartnerIsTheSlowNode() {
    // node-c sends at a tenth of the others' rate
    double[][] gbps = uniform(4, 1.0);
    for (int b = 0; b < 4; b++) {
      gbps[2][b] = 0.1;
    }

    FabricVerdict verdict = FabricJudge.verdict(report(gbps));

    assertThat(verdict.status()).isEqualTo("True");
    assertThat(verdict.reason()).isEqualTo("SlowNode");
    assertThat(verdict.slowNodes()).containsExactly("node-c");
    assertThat(verdict.slowLinks()).isEmpty();
    assertThat(verdict.message())
        .isEqualTo(
            "node node-c slow with 3 of 3 partners: median 0.10 GB/s, 10% of the fabric's 1.00"
                + " GB/s");
  }

  @Test
  void onePairSlowAloneIsASlowLink() {
    double[][] gbps = uniform(4, 1.0);
    gbps[0][3] = 0.2;

    FabricVerdict verdict = FabricJudge.verdict(report(gbps));

    assertThat(verdict.reason()).isEqualTo("SlowLink");
    assertThat(verdict.slowNodes()).isEmpty();
    assertThat(verdict.slowLinks()).containsExactly("node-a <-> node-d");
    assertThat(verdict.message())
        .isEqualTo("link node-a <-> node-d slow: 0.20 GB/s, 20% of the fabric's 1.00 GB/s");
  }

  @Test
  void anEvenFabricIsNotDegraded() {
    double[][] gbps = uniform(4, 1.0);
    gbps[1][2] = 0.8;

    FabricVerdict verdict = FabricJudge.verdict(report(gbps));

    assertThat(verdict.status()).isEqualTo("False");
    assertThat(verdict.reason()).isEqualTo("FabricHealthy");
    assertThat(verdict.message())
        .isEqualTo("every pair within 50% of its matrix's median (4 pods)");
  }

  @Test
  void twoPodsCannotTellANodeFromALink() {
    FabricVerdict verdict = FabricJudge.verdict(report(new double[][] {{0, 0.1}, {1.0, 0}}));

    assertThat(verdict.status()).isEqualTo("Unknown");
    assertThat(verdict.reason()).isEqualTo("TooFewPairs");
  }

  @Test
  void aSlowGpuPairInsideANodeIsNamed() {
    List<List<Double>> oneWay = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      List<Double> row = new ArrayList<>(Arrays.asList(300.0, 300.0, 300.0, 300.0));
      row.set(i, null);
      oneWay.add(row);
    }
    oneWay.get(1).set(3, 40.0);
    NodeMatrix node =
        new NodeMatrix(
            0,
            "gpu-node-1",
            List.of(0, 1, 2, 3),
            oneWay,
            oneWay,
            oneWay,
            List.of(900.0, 900.0, 900.0, 900.0));
    FabricReport report =
        new FabricReport(
            1,
            "sweep",
            4,
            4,
            "cuda",
            "NVIDIA H200",
            1 << 22,
            5,
            0.5,
            "now",
            List.of(),
            List.of(node),
            null);

    FabricVerdict verdict = FabricJudge.verdict(report);

    assertThat(verdict.reason()).isEqualTo("SlowGpuPair");
    assertThat(verdict.slowGpuPairs()).containsExactly("gpu-node-1 GPU 1 -> 3");
    assertThat(verdict.message())
        .isEqualTo("gpu-node-1 GPU 1 -> 3 slow: 40 GB/s, 13% of the node's 300 GB/s");
  }

  @Test
  void aFabricReportSurvivesReportJsonAndGivesTheStatusItsVerdict() {
    double[][] gbps = uniform(4, 1.0);
    for (int b = 0; b < 4; b++) {
      gbps[2][b] = 0.1;
    }
    FabricReport report = report(gbps);

    Report read = ReportJson.parse(ReportJson.write(report), "report.json");
    ReportSummary summary = ReportSummary.of(read);

    assertThat(read).isEqualTo(report);
    assertThat(summary.fabricVerdict())
        .hasValueSatisfying(v -> assertThat(v.slowNodes()).containsExactly("node-c"));
    assertThat(summary.nodes())
        .extracting(NodeFigure::node)
        .containsExactly(NODES.toArray(String[]::new));
    assertThat(summary.nodes().get(2).bandwidthGBps()).isEqualTo(0.1);
  }

  private static double[][] uniform(int n, double value) {
    double[][] gbps = new double[n][n];
    for (double[] row : gbps) {
      Arrays.fill(row, value);
    }
    return gbps;
  }

  private static FabricReport report(double[][] gbps) {
    int n = gbps.length;
    List<List<Double>> matrix = new ArrayList<>();
    for (int a = 0; a < n; a++) {
      List<Double> row = new ArrayList<>();
      for (int b = 0; b < n; b++) {
        row.add(a == b ? null : gbps[a][b]);
      }
      matrix.add(row);
    }
    return new FabricReport(
        1,
        "sweep",
        n,
        1,
        "cpu",
        null,
        1 << 22,
        5,
        0.5,
        "2026-11-26T08:00:00Z",
        List.of(),
        List.of(),
        new PodMatrix(NODES.subList(0, n), matrix, n - 1, 1.5));
  }
}
