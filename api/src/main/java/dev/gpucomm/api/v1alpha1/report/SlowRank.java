package dev.gpucomm.api.v1alpha1.report;

/**
 * The slowest rank at one size, against the median of its peers: an outlier when its figure exceeds
 * theirs by more than the report's threshold, in percent of their time per call.
 *
 * @param micros the rank's own figure, the one {@code figure} names
 * @param peerMedianMicros the median over the other ranks' figures
 * @param peerCallMicros the median over the other ranks' medians: their time per call (the same as
 *     {@code peerMedianMicros} when the figure is the median)
 * @param figure which figure of the ranks was compared
 */
public record SlowRank(
    long bytes,
    String algorithm,
    int rank,
    String node,
    double micros,
    double peerMedianMicros,
    double peerCallMicros,
    RankFigure figure,
    boolean outlier) {

  /**
   * How far behind its peers, in percent of their time per call: by how much the rank held each
   * call up (0 when the peers took no time).
   */
  public double behindPeersPercent() {
    return peerCallMicros <= 0 ? 0 : (micros - peerMedianMicros) / peerCallMicros * 100;
  }
}
