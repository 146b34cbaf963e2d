package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.NormEpilogue;
import java.util.List;

/**
 * A sweep as the runner executes it: every point is measured with every algorithm in {@code
 * algorithms}; with {@code measureAuto}, also with whatever the heuristic chooses at that point.
 *
 * @param graphs also time calls captured in a graph and replayed
 * @param inPlace all-reduce only: the output is the input buffer (only algorithms that allow it)
 * @param algorithmsField the job field listing the algorithms, for error messages
 * @param epilogue all-reduce only: the residual-add + RMSNorm pattern fused into each call, or null
 *     for the plain collective
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
    boolean inPlace,
    long seed,
    String algorithmsField,
    NormEpilogue epilogue) {
  public SweepPlan {
    points = List.copyOf(points);
    algorithms = List.copyOf(algorithms);
    if (algorithms.contains(Algorithm.AUTO)) {
      throw new IllegalArgumentException("auto is resolved per point (measureAuto), not listed");
    }
    if (inPlace && collective != Collective.ALLREDUCE) {
      throw new IllegalArgumentException("only all-reduce runs in place, not " + collective);
    }
    if (inPlace && !algorithms.stream().allMatch(Algorithm::mayRunInPlace)) {
      throw new IllegalArgumentException("not every one of " + algorithms + " runs in place");
    }
    if (epilogue != null && (collective != Collective.ALLREDUCE || inPlace)) {
      throw new IllegalArgumentException("a fused pattern is an out-of-place all-reduce");
    }
    if (epilogue != null && epilogue.hiddenSize() != hiddenSize) {
      throw new IllegalArgumentException(
          "the pattern's rows of " + epilogue.hiddenSize() + " are not the plan's " + hiddenSize);
    }
  }

  /** A plan of the plain collective, without a fused pattern. */
  public SweepPlan(
      Collective collective,
      DType dtype,
      int hiddenSize,
      List<SweepPoint> points,
      List<Algorithm> algorithms,
      boolean measureAuto,
      int warmupIterations,
      int iterations,
      boolean graphs,
      boolean inPlace,
      long seed,
      String algorithmsField) {
    this(
        collective,
        dtype,
        hiddenSize,
        points,
        algorithms,
        measureAuto,
        warmupIterations,
        iterations,
        graphs,
        inPlace,
        seed,
        algorithmsField,
        null);
  }

  /** Whether each call runs the residual-add + RMSNorm pattern around its all-reduce. */
  public boolean fused() {
    return epilogue != null;
  }
}
