package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** All algorithms measured at one message size, with what the heuristic chose for it. */
public record SizeResult(
    long bytes,
    Integer tokens,
    Algorithm chosen,
    String chosenReason,
    List<Measurement> measurements) {

  public SizeResult {
    measurements = List.copyOf(measurements);
  }

  /** The fastest measured algorithm, not counting {@code auto} (which runs one of the others). */
  public Optional<Measurement> best() {
    return measurements.stream()
        .filter(m -> m.algorithm() != Algorithm.AUTO)
        .min(Comparator.comparingDouble(Measurement::bestMicros));
  }

  public Optional<Measurement> of(Algorithm algorithm) {
    return measurements.stream().filter(m -> m.algorithm() == algorithm).findFirst();
  }
}
