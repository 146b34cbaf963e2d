package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;

/**
 * A sweep as the runner executes it: every point is measured with every algorithm in {@code
 * algorithms}; with {@code measureAuto}, also with whatever the heuristic chooses at that point.
 *
 * @param graphs also time calls captured in a graph and replayed
 * @param algorithmsField the job field listing the algorithms, for error messages
 */
public record SweepPlan(
    Collective collective,
    DType dtype,
    int hiddenSize,
    List<SweepPoint> points,
    List<Algorithm> algorithms,
    boolean measureAuto,
    int warmupIterations,
    int iterations,
    boolean graphs,
    long seed,
    String algorithmsField) {
  public SweepPlan {
    points = List.copyOf(points);
    algorithms = List.copyOf(algorithms);
    if (algorithms.contains(Algorithm.AUTO)) {
      throw new IllegalArgumentException("auto is resolved per point (measureAuto), not listed");
    }
  }
}
