package dev.gpucomm.api.v1alpha1.validation;

import dev.gpucomm.api.v1alpha1.ProgramName;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a host-IR program asks of its shape: the dimension it splits among the ranks, or into the
 * stream-parallel loop's chunks, must split evenly. A row-parallel linear splits k among the ranks
 * and its m into chunks; a column-parallel linear and a collective permute split m among the ranks.
 *
 * <p>Checked where a spec is read (the operator, {@code gpucomm run}), on the sizes it gives, and
 * again where the program is built, on the sizes then resolved (the defaults are chosen to divide).
 */
public final class ProgramShapeRules {
  private static final String AT = "spec.workload.program.";

  private ProgramShapeRules() {}

  /**
   * The problems of program {@code name}'s shape dimensions {@code m} and {@code k} (null where the
   * spec gives none) for {@code chunks} chunks and {@code worldSize} ranks.
   */
  public static List<SpecProblem> problems(
      ProgramName name, Long m, Long k, int chunks, int worldSize) {
    // a switch expression: a program added to ProgramName must say what it splits
    Stream<Optional<SpecProblem>> problems =
        switch (name) {
          case ROW_PARALLEL_LINEAR ->
              Stream.of(
                  divides("shape.m", m, chunks, AT + "chunks"),
                  divides("shape.k", k, worldSize, "spec.worldSize"));
          case COLUMN_PARALLEL_LINEAR, COLLECTIVE_PERMUTE ->
              Stream.of(divides("shape.m", m, worldSize, "spec.worldSize"));
        };
    return problems.flatMap(Optional::stream).toList();
  }

  private static Optional<SpecProblem> divides(
      String field, Long value, int divisor, String divisorField) {
    if (value == null || value <= 0 || divisor <= 0 || value % divisor == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new SpecProblem(
            AT + field, "%d is not a multiple of %s (%d)".formatted(value, divisorField, divisor)));
  }
}
