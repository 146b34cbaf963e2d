package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.util.Objects;

/**
 * Always the named algorithm (the CommJob's {@code heuristic.fixedAlgorithm}); where the
 * communicator cannot run it, the usual replacement along oneshot → twoshot → nccl → ring, said in
 * the reason.
 */
public final class FixedHeuristic implements AlgorithmHeuristic {
  private final Algorithm algorithm;

  /**
   * @throws IllegalArgumentException when {@code algorithm} is {@code auto}, which is not an
   *     algorithm but the request to ask a heuristic
   */
  public FixedHeuristic(Algorithm algorithm) {
    Objects.requireNonNull(algorithm, "algorithm");
    if (algorithm == Algorithm.AUTO) {
      throw new IllegalArgumentException(
          "heuristic.fixedAlgorithm: auto is not a fixed algorithm (choose one of nccl, oneshot,"
              + " twoshot, ring, hierarchical, copyengine)");
    }
    this.algorithm = algorithm;
  }

  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public String name() {
    return "fixed";
  }

  @Override
  public Decision choose(SizeQuery query) {
    return Decisions.settle(name(), query, algorithm, "fixed → " + algorithm);
  }
}
