package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The slowest rank per size of a benchmark report, judged against the median of its peers: per size
 * the fastest algorithm's per-rank medians are compared, since that is the figure the report leads
 * with.
 */
public final class RankOutliers {
  private RankOutliers() {}

  /** One entry per size that has per-rank figures for its fastest algorithm, in size order. */
  public static List<SlowRank> of(BenchmarkReport report) {
    Map<Integer, RankIdentity> identities = new HashMap<>();
    for (RankIdentity identity : report.ranks()) {
      identities.put(identity.rank(), identity);
    }
    List<SlowRank> slowest = new ArrayList<>();
    for (SizeResult size : report.sizes()) {
      Optional<Measurement> best = size.best();
      if (best.isEmpty()) {
        continue;
      }
      List<RankTiming> timings =
          report.rankTimings().stream()
              .filter(t -> t.bytes() == size.bytes() && t.algorithm() == best.get().algorithm())
              .toList();
      slowestOf(timings, identities, report.outlierThresholdPercent()).ifPresent(slowest::add);
    }
    return slowest;
  }

  /** The ranks flagged as outliers, in size order. */
  public static List<SlowRank> outliers(BenchmarkReport report) {
    return of(report).stream().filter(SlowRank::outlier).toList();
  }

  private static Optional<SlowRank> slowestOf(
      List<RankTiming> timings, Map<Integer, RankIdentity> identities, double thresholdPercent) {
    if (timings.size() < 2) {
      return Optional.empty();
    }
    RankTiming slowest =
        timings.stream().max(Comparator.comparingDouble(RankTiming::medianMicros)).orElseThrow();
    double[] peers =
        timings.stream()
            .filter(t -> t != slowest)
            .mapToDouble(RankTiming::medianMicros)
            .sorted()
            .toArray();
    double peerMedian = median(peers);
    RankIdentity identity = identities.get(slowest.rank());
    String node = identity == null ? null : identity.where();
    // compared as a product so that a rank exactly at the threshold is not flagged
    boolean outlier = slowest.medianMicros() > peerMedian * (1 + thresholdPercent / 100);
    return Optional.of(
        new SlowRank(
            slowest.bytes(),
            slowest.algorithm().wireName(),
            slowest.rank(),
            node,
            slowest.medianMicros(),
            peerMedian,
            outlier));
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
