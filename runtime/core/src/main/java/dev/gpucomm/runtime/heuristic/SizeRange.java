package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Objects;

/**
 * Message sizes {@code fromBytes ≤ bytes < toBytes} for which one algorithm measured fastest; the
 * last range of a curve also includes {@code toBytes}, the largest measured size.
 */
public record SizeRange(long fromBytes, long toBytes, Algorithm algorithm) {
  public SizeRange {
    Objects.requireNonNull(algorithm, "algorithm");
    if (algorithm == Algorithm.AUTO) {
      throw new IllegalArgumentException("algorithm: auto is not a measured algorithm");
    }
    if (fromBytes < 0) {
      throw new IllegalArgumentException("fromBytes: must not be negative, got " + fromBytes);
    }
    if (toBytes < fromBytes) {
      throw new IllegalArgumentException(
          "toBytes: " + toBytes + " is below fromBytes " + fromBytes);
    }
  }
}
