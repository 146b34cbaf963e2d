package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.Objects;

/**
 * One median from a tuning sweep, the input of {@link TuningTable#fromMeasurements}: an algorithm's
 * latency at one size, for one world size and dtype.
 */
public record TuningSample(
    int worldSize, DType dtype, long bytes, Algorithm algorithm, double medianMicros) {
  public TuningSample {
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(algorithm, "algorithm");
    if (worldSize < 1) {
      throw new IllegalArgumentException("worldSize: must be at least 1, got " + worldSize);
    }
  }
}
