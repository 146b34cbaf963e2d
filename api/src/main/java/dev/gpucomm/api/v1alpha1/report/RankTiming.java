package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;

/**
 * One rank's own figures for one algorithm at one size: the median of its timed calls and their
 * spread (the interquartile range), before the ranks are merged into the slowest one, and the mean
 * time per call it spent outside waits for its peers.
 *
 * <p>Every rank of a collective takes as long as the slowest, so the medians of a job's ranks are
 * alike whichever rank held the others up; the own time is what differs: the rank that held them up
 * waited least.
 *
 * @param ownMicros the time per call outside waits for peers, a mean over the timed calls (null
 *     where the backend does not measure it, as NCCL waits on the GPU, and in reports written
 *     before the field existed)
 */
public record RankTiming(
    long bytes,
    Algorithm algorithm,
    int rank,
    double medianMicros,
    double spreadMicros,
    Double ownMicros) {

  /** Figures without an own time. */
  public RankTiming(
      long bytes, Algorithm algorithm, int rank, double medianMicros, double spreadMicros) {
    this(bytes, algorithm, rank, medianMicros, spreadMicros, null);
  }
}
