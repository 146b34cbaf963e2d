package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Per-node figures of a report, one per node, for metrics whose only unbounded label is none. */
final class NodeFigures {
  private NodeFigures() {}

  /**
   * Per node, the slowest of its ranks' own medians for the fastest algorithm at the largest size
   * (empty when the report has no per-rank figures).
   */
  static List<NodeFigure> of(BenchmarkReport report) {
    Optional<SizeResult> largest =
        report.sizes().stream().max(Comparator.comparingLong(SizeResult::bytes));
    Optional<Measurement> best = largest.flatMap(SizeResult::best);
    if (best.isEmpty()) {
      return List.of();
    }
    Map<Integer, String> nodeOfRank = new HashMap<>();
    for (RankIdentity rank : report.ranks()) {
      nodeOfRank.put(rank.rank(), rank.where());
    }
    Map<String, Double> slowest = new LinkedHashMap<>();
    for (RankTiming timing : report.rankTimings()) {
      String node = nodeOfRank.get(timing.rank());
      if (node != null
          && timing.bytes() == largest.get().bytes()
          && timing.algorithm() == best.get().algorithm()) {
        slowest.merge(node, timing.medianMicros(), Math::max);
      }
    }
    List<NodeFigure> figures = new ArrayList<>();
    slowest.forEach((node, micros) -> figures.add(new NodeFigure(node, micros, null)));
    return figures;
  }

  /** Per pod's node, the median of its pairs' bandwidth with the other pods. */
  static List<NodeFigure> of(FabricReport report) {
    PodMatrix pods = report.interNode();
    if (pods == null) {
      return List.of();
    }
    List<NodeFigure> figures = new ArrayList<>();
    for (int a = 0; a < pods.nodes().size(); a++) {
      List<Double> pairs = new ArrayList<>();
      for (int b = 0; b < pods.nodes().size(); b++) {
        if (a != b && pods.pairGBps(a, b) != null) {
          pairs.add(pods.pairGBps(a, b));
        }
      }
      if (!pairs.isEmpty() && pods.nodes().get(a) != null) {
        figures.add(new NodeFigure(pods.nodes().get(a), null, FabricJudge.median(pairs)));
      }
    }
    return figures;
  }
}
