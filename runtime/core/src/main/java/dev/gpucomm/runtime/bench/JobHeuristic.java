package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.Heuristics;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.spec.InvalidJobException;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.util.function.Function;

/** The heuristic a job's {@code spec.heuristic} names, with its problems reported as job errors. */
public final class JobHeuristic {
  private JobHeuristic() {}

  public static AlgorithmHeuristic create(
      LoadedJob job,
      Function<String, TuningTable> tuningTables,
      Collective collective,
      int worldSize,
      DType dtype,
      String deviceName) {
    try {
      return Heuristics.create(
          job.job().getSpec().getHeuristic(),
          tuningTables,
          collective,
          worldSize,
          dtype,
          deviceName);
    } catch (IllegalArgumentException e) {
      throw new InvalidJobException(job.source(), "spec.heuristic", e.getMessage());
    }
  }
}
