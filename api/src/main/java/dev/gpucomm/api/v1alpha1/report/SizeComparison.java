package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Comparator;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One size's algorithms compared on one {@link TimeBasis}: the fastest (never {@code auto}, which
 * runs one of the others), the baseline (nccl, or ring where nccl was not measured, as on the CPU
 * backend), the best's speedup over the baseline, and how the heuristic's choice fared.
 */
public record SizeComparison(SizeResult size, TimeBasis basis) {

  /** The shown median of {@code algorithm}, if it was measured at this size. */
  public OptionalDouble micros(Algorithm algorithm) {
    return size.of(algorithm).stream().mapToDouble(basis::micros).findFirst();
  }

  /** The fastest measured algorithm other than auto. */
  public Optional<Measurement> best() {
    return size.measurements().stream()
        .filter(m -> m.algorithm() != Algorithm.AUTO)
        .min(Comparator.comparingDouble(basis::micros));
  }

  /** nccl where measured, else ring where measured. */
  public Optional<Measurement> baseline() {
    return size.of(Algorithm.NCCL).or(() -> size.of(Algorithm.RING));
  }

  /** Baseline time over best time, e.g. 1.63 when the best is 1.63× faster than NCCL. */
  public OptionalDouble bestSpeedupOverBaseline() {
    Optional<Measurement> best = best();
    Optional<Measurement> baseline = baseline();
    if (best.isEmpty() || baseline.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(basis.micros(baseline.get()) / basis.micros(best.get()));
  }

  /** Chosen time over best time (1 when the heuristic chose the best), if both were measured. */
  public OptionalDouble chosenSlowdown() {
    if (size.chosen() == null) {
      return OptionalDouble.empty();
    }
    OptionalDouble chosen = micros(size.chosen());
    Optional<Measurement> best = best();
    if (chosen.isEmpty() || best.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(chosen.getAsDouble() / basis.micros(best.get()));
  }
}
