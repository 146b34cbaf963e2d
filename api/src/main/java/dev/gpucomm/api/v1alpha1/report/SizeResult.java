package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * All algorithms measured at one message size, with what the heuristic chose for it, and those that
 * could not run at this size ({@code notMeasured}, empty in reports written before it existed).
 */
public record SizeResult(
    long bytes,
    Integer tokens,
    Algorithm chosen,
    String chosenReason,
    List<Measurement> measurements,
    List<NotMeasured> notMeasured) {

  public SizeResult {
    measurements = List.copyOf(measurements);
    notMeasured = notMeasured == null ? List.of() : List.copyOf(notMeasured);
  }

  /** A size at which every algorithm ran. */
  public SizeResult(
      long bytes,
      Integer tokens,
      Algorithm chosen,
      String chosenReason,
      List<Measurement> measurements) {
    this(bytes, tokens, chosen, chosenReason, measurements, List.of());
  }

  /** Why {@code algorithm} did not run at this size, when it could not. */
  public Optional<String> notMeasuredReason(Algorithm algorithm) {
    return notMeasured.stream()
        .filter(n -> n.algorithm() == algorithm)
        .map(NotMeasured::reason)
        .findFirst();
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
