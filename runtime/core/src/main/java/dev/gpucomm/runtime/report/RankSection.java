package dev.gpucomm.runtime.report;

import static dev.gpucomm.runtime.report.HumanUnits.fixed;
import static dev.gpucomm.runtime.report.HumanUnits.shortBytes;
import static dev.gpucomm.runtime.report.HumanUnits.trimmed;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.RankFigure;
import dev.gpucomm.api.v1alpha1.report.RankIdentity;
import dev.gpucomm.api.v1alpha1.report.RankOutliers;
import dev.gpucomm.api.v1alpha1.report.SlowRank;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * report.md's per-rank part: who each rank was, and per size the slowest rank, its node and how far
 * behind the other ranks it was, with outliers flagged and the figure they were judged by named.
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
    Set<RankFigure> figures = EnumSet.noneOf(RankFigure.class);
    slowest.forEach(slow -> figures.add(slow.figure()));
    boolean ownTime = figures.contains(RankFigure.OWN_TIME);
    md.append("\n## Slowest rank per size\n\n")
        .append(figureSentence(figures))
        .append(" A rank behind by more than ")
        .append(trimmed(report.outlierThresholdPercent(), 1))
        .append("% is an outlier.\n\n");
    if (ownTime) {
      md.append("| Tensor Size | Algorithm | Slowest rank | Node | ")
          .append(figures.contains(RankFigure.MEDIAN) ? "Its figure (µs)" : "Its own time (µs)")
          .append(
              " | Peers' median (µs) | Peers' time per call (µs) | Behind | Outlier |\n"
                  + "|---:|---|---:|---|---:|---:|---:|---:|---|\n");
    } else {
      md.append(
          "| Tensor Size | Algorithm | Slowest rank | Node | Its median (µs) | Peers' median (µs) |"
              + " Behind | Outlier |\n|---:|---|---:|---|---:|---:|---:|---|\n");
    }
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
          .append(fixed(slow.peerMedianMicros(), 2));
      if (ownTime) {
        md.append(" | ").append(fixed(slow.peerCallMicros(), 2));
      }
      md.append(" | +")
          .append(fixed(slow.behindPeersPercent(), 1))
          .append("% | ")
          .append(slow.outlier() ? "**yes**" : "no")
          .append(" |\n");
    }
  }

  /** What the figure compared at each size is, and what Behind measures. */
  private static String figureSentence(Set<RankFigure> figures) {
    String ownTime =
        "each rank's own time per call at the size's fastest algorithm, its mean time outside"
            + " its waits for the other ranks. Every rank of a collective takes as long as the"
            + " slowest one, so the rank that held the others up is the one that waited least:"
            + " Behind is how much its own time exceeds the other ranks' median, in percent of"
            + " their median time per call.";
    String median =
        "each rank's own eager median of the size's fastest algorithm; Behind is how much it"
            + " exceeds the median of the other ranks, in percent of that.";
    if (!figures.contains(RankFigure.MEDIAN)) {
      return "Compared: " + ownTime;
    }
    if (!figures.contains(RankFigure.OWN_TIME)) {
      return "Compared: " + median;
    }
    return "Compared where every rank measured it: " + ownTime + " Elsewhere: " + median;
  }

  private static String orUnknown(String text) {
    return text == null || text.isBlank() ? UNKNOWN : text.replace("|", "\\|");
  }
}
