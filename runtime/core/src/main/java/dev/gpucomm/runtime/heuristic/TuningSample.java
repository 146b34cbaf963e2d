package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.Objects;

/**
 * One median from a tuning sweep, the input of {@link TuningTable#fromMeasurements}: an algorithm's
 * latency at one size, for one world size, layout (ranks per node) and dtype, on one device model
 * ({@code device}, null where not known).
 */
public record TuningSample(
    int worldSize,
    DType dtype,
    long bytes,
    Algorithm algorithm,
    double medianMicros,
    int ranksPerNode,
    String device) {
  /** A sample of a device not recorded. */
  public TuningSample(
      int worldSize,
      DType dtype,
      long bytes,
      Algorithm algorithm,
      double medianMicros,
      int ranksPerNode) {
    this(worldSize, dtype, bytes, algorithm, medianMicros, ranksPerNode, null);
  }

  /** A sample without a recorded layout ({@link TuningCurve#LAYOUT_NOT_RECORDED}). */
  public TuningSample(
      int worldSize, DType dtype, long bytes, Algorithm algorithm, double medianMicros) {
    this(worldSize, dtype, bytes, algorithm, medianMicros, TuningCurve.LAYOUT_NOT_RECORDED);
  }

  public TuningSample {
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(algorithm, "algorithm");
    if (worldSize < 1) {
      throw new IllegalArgumentException("worldSize: must be at least 1, got " + worldSize);
    }
  }
}
