package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The slowest rank per size of a benchmark report, judged against the median of its peers: per size
 * the fastest algorithm's per-rank figures are compared, since that is the algorithm the report
 * leads with. A rank is an outlier when its figure exceeds its peers' median by more than the
 * threshold, in percent of the peers' median time per call: by how much it held each call up.
 *
 * <p>The figure is each rank's own time per call, outside its waits for peers, wherever every rank
 * measured it ({@link RankFigure#OWN_TIME}). A collective ends on every rank when its slowest rank
 * is done, so a rank slowed by a cause of its own (a CPU quota, a core it shares) stretches its
 * peers' calls as much as its own: their medians stay alike, and the slowest median is whichever
 * rank noise made so. The rank that held the others up is the one that waited least, so its own
 * time exceeds theirs by about the time it cost each call. The excess is taken against the time per
 * call rather than the peers' own time, which can be a small part of a call: a few microseconds of
 * noise on it are no outlier. Elsewhere (NCCL waits on the GPU, reports written before the own time
 * existed) the medians are compared, and the peers' median is the time per call itself.
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
    RankFigure figure =
        timings.stream().allMatch(t -> t.ownMicros() != null)
            ? RankFigure.OWN_TIME
            : RankFigure.MEDIAN;
    ToDoubleFunction<RankTiming> micros =
        figure == RankFigure.OWN_TIME ? RankTiming::ownMicros : RankTiming::medianMicros;
    RankTiming slowest = timings.stream().max(Comparator.comparingDouble(micros)).orElseThrow();
    List<RankTiming> peers = timings.stream().filter(t -> t != slowest).toList();
    double peerMedian = median(peers.stream().mapToDouble(micros).sorted().toArray());
    double peerCall =
        median(peers.stream().mapToDouble(RankTiming::medianMicros).sorted().toArray());
    RankIdentity identity = identities.get(slowest.rank());
    String node = identity == null ? null : identity.where();
    double slowestMicros = micros.applyAsDouble(slowest);
    // multiplied before dividing, so that a rank exactly at a whole-number threshold is not flagged
    boolean outlier = slowestMicros - peerMedian > peerCall * thresholdPercent / 100;
    return Optional.of(
        new SlowRank(
            slowest.bytes(),
            slowest.algorithm().wireName(),
            slowest.rank(),
            node,
            slowestMicros,
            peerMedian,
            peerCall,
            figure,
            outlier));
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
