package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The per-size rows of a CommJob's status, from a benchmark report. */
public final class StatusSummary {
  private StatusSummary() {}

  /**
   * One row per size: what the heuristic chose, the fastest algorithm other than auto (graph time
   * where measured, eager otherwise; auto where it alone was measured), their latencies, the best's
   * bus bandwidth and its speedup over NCCL (or ring).
   */
  public static List<SizeSummary> of(BenchmarkReport report) {
    Map<Long, SlowRank> slowest = new HashMap<>();
    for (SlowRank slow : RankOutliers.of(report)) {
      slowest.put(slow.bytes(), slow);
    }
    return report.sizes().stream()
        .map(size -> withSlowestRank(row(report, size), slowest.get(size.bytes())))
        .toList();
  }

  private static SizeSummary withSlowestRank(SizeSummary row, SlowRank slow) {
    if (slow == null) {
      return row;
    }
    return row.withSlowestRank(slow.rank())
        .withSlowestNode(slow.node())
        .withSlowestBehindPeersPercent(Math.round(slow.behindPeersPercent() * 10) / 10.0)
        .withOutlier(slow.outlier());
  }

  private static SizeSummary row(BenchmarkReport report, SizeResult size) {
    SizeComparison comparison = new SizeComparison(size, TimeBasis.GRAPH_WHERE_MEASURED);
    SizeSummary row =
        new SizeSummary()
            .withCollective(report.collective().wireName())
            .withBytes(size.bytes())
            .withTokens(size.tokens())
            .withChosen(size.chosen() == null ? null : size.chosen().wireName());
    // a gate on what the heuristic picks measures auto alone: its time is then the best there is
    comparison
        .best()
        .or(() -> size.of(Algorithm.AUTO))
        .ifPresent(
            best -> {
              double micros = comparison.basis().micros(best);
              row.withBest(best.algorithm().wireName())
                  .withLatencyMicros(micros)
                  .withBusBandwidthGBps(
                      BusBandwidth.busBandwidthOfMessage(
                          report.collective(), report.worldSize(), size.bytes(), micros));
            });
    if (size.chosen() != null) {
      comparison.micros(size.chosen()).ifPresent(row::withChosenLatencyMicros);
    }
    comparison.bestSpeedupOverBaseline().ifPresent(row::withSpeedupVsNccl);
    return row;
  }
}
