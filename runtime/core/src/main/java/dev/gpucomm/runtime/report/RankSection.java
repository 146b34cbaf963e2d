package dev.gpucomm.runtime.report;

import static dev.gpucomm.runtime.report.HumanUnits.fixed;
import static dev.gpucomm.runtime.report.HumanUnits.shortBytes;
import static dev.gpucomm.runtime.report.HumanUnits.trimmed;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.RankIdentity;
import dev.gpucomm.api.v1alpha1.report.RankOutliers;
import dev.gpucomm.api.v1alpha1.report.SlowRank;
import java.util.List;

/**
 * report.md's per-rank part: who each rank was, and per size the slowest rank, its node and how far
 * behind the other ranks it was, with outliers flagged.
 */
final class RankSection {
  private static final String UNKNOWN = "—";

  private RankSection() {}

  /** Appends the section; a report without per-rank figures gets none. */
  static void append(StringBuilder md, BenchmarkReport report) {
    List<SlowRank> slowest = RankOutliers.of(report);
    if (report.ranks().isEmpty() && slowest.isEmpty()) {
      return;
    }
    if (!report.ranks().isEmpty()) {
      md.append("\n## Ranks\n\n");
      md.append("| Rank | Pod | Node | GPU | PCI bus | NICs |\n|---:|---|---|---|---|---|\n");
      for (RankIdentity rank : report.ranks()) {
        md.append("| ")
            .append(rank.rank())
            .append(" | ")
            .append(orUnknown(rank.pod()))
            .append(" | ")
            .append(orUnknown(rank.where()))
            .append(" | ")
            .append(orUnknown(rank.gpuUuid()))
            .append(" | ")
            .append(orUnknown(rank.pciBusId()))
            .append(" | ")
            .append(rank.nics().isEmpty() ? UNKNOWN : String.join(", ", rank.nics()))
            .append(" |\n");
      }
    }
    if (slowest.isEmpty()) {
      return;
    }
    md.append("\n## Slowest rank per size\n\n")
        .append("Each rank's own eager median of the size's fastest algorithm; a rank slower than")
        .append(" the median of the other ranks by more than ")
        .append(trimmed(report.outlierThresholdPercent(), 1))
        .append("% is an outlier.\n\n");
    md.append(
        "| Tensor Size | Algorithm | Slowest rank | Node | Its median (µs) | Peers' median (µs) |"
            + " Behind | Outlier |\n|---:|---|---:|---|---:|---:|---:|---|\n");
    for (SlowRank slow : slowest) {
      md.append("| ")
          .append(shortBytes(slow.bytes()))
          .append(" | ")
          .append(slow.algorithm())
          .append(" | ")
          .append(slow.rank())
          .append(" | ")
          .append(orUnknown(slow.node()))
          .append(" | ")
          .append(fixed(slow.micros(), 2))
          .append(" | ")
          .append(fixed(slow.peerMedianMicros(), 2))
          .append(" | +")
          .append(fixed(slow.behindPeersPercent(), 1))
          .append("% | ")
          .append(slow.outlier() ? "**yes**" : "no")
          .append(" |\n");
    }
  }

  private static String orUnknown(String text) {
    return text == null || text.isBlank() ? UNKNOWN : text.replace("|", "\\|");
  }
}
