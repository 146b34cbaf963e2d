package dev.gpucomm.api.v1alpha1.report;

/**
 * The slowest rank at one size, against the median of its peers: an outlier when it is slower than
 * them by more than the report's threshold.
 *
 * @param peerMedianMicros the median over the other ranks' medians
 */
public record SlowRank(
    long bytes,
    String algorithm,
    int rank,
    String node,
    double micros,
    double peerMedianMicros,
    boolean outlier) {

  /** How much slower than its peers, in percent (0 when the peers took no time). */
  public double behindPeersPercent() {
    return peerMedianMicros <= 0 ? 0 : (micros / peerMedianMicros - 1) * 100;
  }
}
