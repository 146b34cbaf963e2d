package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Objects;

/** One measured median a tuning curve was derived from: an algorithm's latency at one size. */
public record MeasuredPoint(long bytes, Algorithm algorithm, double medianMicros) {
  public MeasuredPoint {
    Objects.requireNonNull(algorithm, "algorithm");
    if (algorithm == Algorithm.AUTO) {
      throw new IllegalArgumentException("algorithm: auto is not a measured algorithm");
    }
    if (bytes <= 0) {
      throw new IllegalArgumentException("bytes: must be positive, got " + bytes);
    }
    if (!Double.isFinite(medianMicros) || medianMicros <= 0) {
      throw new IllegalArgumentException(
          "medianMicros: must be a positive number, got " + medianMicros);
    }
  }
}
