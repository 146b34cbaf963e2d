package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;

/**
 * One rank's validated figures for one algorithm at one point of a sweep: medians over the timed
 * calls, the graph median when graphs were timed (else null), and the worst relative error seen;
 * {@code rank}, the eager calls' interquartile range and the rank's own time per call keep what
 * each rank saw on its own.
 *
 * @param ownMicros the mean time per eager call this rank spent outside waits for its peers (null
 *     where the backend does not measure it)
 */
public record PointFigures(
    int pointIndex,
    Algorithm algorithm,
    double eagerMicros,
    Double graphMicros,
    double maxRelativeError,
    int rank,
    double eagerSpreadMicros,
    Double ownMicros) {

  /** The figures of several ranks for the same point and algorithm, merged as nccl-tests does. */
  public PointFigures slowest(PointFigures other) {
    Double graph =
        graphMicros == null || other.graphMicros == null
            ? null
            : Math.max(graphMicros, other.graphMicros);
    return new PointFigures(
        pointIndex,
        algorithm,
        Math.max(eagerMicros, other.eagerMicros),
        graph,
        Math.max(maxRelativeError, other.maxRelativeError),
        eagerMicros >= other.eagerMicros ? rank : other.rank,
        eagerMicros >= other.eagerMicros ? eagerSpreadMicros : other.eagerSpreadMicros,
        eagerMicros >= other.eagerMicros ? ownMicros : other.ownMicros);
  }
}
