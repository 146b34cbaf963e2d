package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import java.util.Objects;
import java.util.function.Function;

/** Builds the {@link AlgorithmHeuristic} a CommJob's {@code spec.heuristic} names. */
public final class Heuristics {
  private Heuristics() {}

  /**
   * The heuristic for {@code spec}: trtllm when {@code spec} or its name is null (the CRD's
   * default). For {@code measured}, {@code tableLoader} turns {@code spec.tuningRef} (a ConfigMap
   * name in a cluster, a file path locally, e.g. {@link TuningTableJson#fileLoader()}) into a
   * table; a missing curve is reported at the first query that needs it. Prefer {@link
   * #create(Heuristic, Function, Collective, int, DType, String)} where the job's world size and
   * dtype are known.
   *
   * @throws IllegalArgumentException naming the spec field when the spec is incomplete, or from the
   *     loader when the table cannot be read
   */
  public static AlgorithmHeuristic create(
      Heuristic spec, Function<String, TuningTable> tableLoader) {
    if (spec != null && spec.getName() == HeuristicName.MEASURED) {
      return new MeasuredHeuristic(load(spec, tableLoader));
    }
    return createRuleBased(spec);
  }

  /**
   * As {@link #create(Heuristic, Function)}, for a job of {@code collective} on {@code worldSize}
   * ranks exchanging {@code dtype} on devices named {@code deviceName}: a tuning table of another
   * collective, or without that curve measured on that device model, is rejected now.
   *
   * @throws IllegalArgumentException naming the table and what it lacks
   */
  public static AlgorithmHeuristic create(
      Heuristic spec,
      Function<String, TuningTable> tableLoader,
      Collective collective,
      int worldSize,
      DType dtype,
      String deviceName) {
    if (spec != null && spec.getName() == HeuristicName.MEASURED) {
      return new MeasuredHeuristic(
          load(spec, tableLoader), collective, worldSize, dtype, deviceName);
    }
    return createRuleBased(spec);
  }

  private static AlgorithmHeuristic createRuleBased(Heuristic spec) {
    HeuristicName name =
        spec == null || spec.getName() == null ? HeuristicName.TRTLLM : spec.getName();
    return switch (name) {
      case TRTLLM -> new TrtllmHeuristic();
      case VLLM -> new VllmHeuristic();
      case FIXED -> {
        if (spec.getFixedAlgorithm() == null) {
          throw new IllegalArgumentException(
              "heuristic.fixedAlgorithm is required when heuristic.name is fixed");
        }
        yield new FixedHeuristic(spec.getFixedAlgorithm());
      }
      case MEASURED -> throw new IllegalStateException("measured is built with its table");
    };
  }

  private static TuningTable load(Heuristic spec, Function<String, TuningTable> tableLoader) {
    String reference = spec.getTuningRef();
    if (reference == null || reference.isBlank()) {
      throw new IllegalArgumentException(
          "heuristic.tuningRef is required when heuristic.name is measured");
    }
    Objects.requireNonNull(tableLoader, "tableLoader");
    TuningTable table = tableLoader.apply(reference);
    if (table == null) {
      throw new IllegalArgumentException(
          "heuristic.tuningRef: no tuning table found for '" + reference + "'");
    }
    return table;
  }
}
