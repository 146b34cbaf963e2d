package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which algorithms a sweep measures for a collective on a communicator. Every backend accepts
 * {@code nccl}; where the backend has a ring (the CPU backend's stand-in for NCCL), {@code nccl}
 * runs that ring, so it is accepted but not measured twice by default. A collective permute takes
 * no algorithm; its measurements carry the backend's library algorithm (nccl, or ring on the CPU).
 * Hierarchical is measured by default only for jobs that span pods.
 */
public final class CollectiveAlgorithms {
  /** The order reports list algorithms in. */
  private static final Algorithm[] ORDER = {
    Algorithm.NCCL,
    Algorithm.RING,
    Algorithm.ONESHOT,
    Algorithm.TWOSHOT,
    Algorithm.HIERARCHICAL,
    Algorithm.COPYENGINE
  };

  private CollectiveAlgorithms() {}

  /** What a sweep measures when the job lists no algorithms, and what auto may choose from. */
  public static Set<Algorithm> available(Communicator communicator, Collective collective) {
    return available(communicator, collective, false);
  }

  /**
   * {@link #available(Communicator, Collective)}, only those that run in place when asked ({@link
   * Algorithm#mayRunInPlace}).
   */
  public static Set<Algorithm> available(
      Communicator communicator, Collective collective, boolean inPlace) {
    Set<Algorithm> algorithms = allAvailable(communicator, collective);
    if (inPlace) {
      algorithms.removeIf(algorithm -> !algorithm.mayRunInPlace());
    }
    return algorithms;
  }

  private static Set<Algorithm> allAvailable(Communicator communicator, Collective collective) {
    if (collective == Collective.COLLECTIVEPERMUTE) {
      return EnumSet.of(libraryAlgorithm(communicator));
    }
    Set<Algorithm> algorithms = EnumSet.noneOf(Algorithm.class);
    algorithms.addAll(communicator.algorithms(collective));
    algorithms.remove(Algorithm.AUTO);
    if (!algorithms.contains(Algorithm.RING)) {
      algorithms.add(Algorithm.NCCL);
    }
    if (communicator.topology().singleNode()) {
      // Inside one pod hierarchical is a ring reduce-scatter and all-gather: accepted when a job
      // lists it, not measured by default.
      algorithms.remove(Algorithm.HIERARCHICAL);
    }
    return algorithms;
  }

  /**
   * What a sweep of a fused all-reduce pattern measures when the job lists no algorithms: those of
   * {@link #available} for all-reduce that run the pattern.
   */
  public static Set<Algorithm> fusedAvailable(Communicator communicator, FusedAllReduce fused) {
    Set<Algorithm> algorithms = available(communicator, Collective.ALLREDUCE, false);
    algorithms.retainAll(fused.fusedAllReduceAlgorithms());
    return algorithms;
  }

  /** What a job may list: {@link #available} and nccl. */
  public static Set<Algorithm> accepted(
      Communicator communicator, Collective collective, boolean inPlace) {
    Set<Algorithm> algorithms = EnumSet.copyOf(available(communicator, collective, inPlace));
    if (collective != Collective.COLLECTIVEPERMUTE) {
      algorithms.add(Algorithm.NCCL);
    }
    if (communicator.algorithms(collective).contains(Algorithm.HIERARCHICAL)) {
      algorithms.add(Algorithm.HIERARCHICAL);
    }
    return algorithms;
  }

  /** nccl, or the ring that stands in for it. */
  static Algorithm libraryAlgorithm(Communicator communicator) {
    return communicator.allReduceAlgorithms().contains(Algorithm.RING)
        ? Algorithm.RING
        : Algorithm.NCCL;
  }

  /**
   * {@code algorithms} in the order reports list them: nccl, ring, oneshot, twoshot, hierarchical,
   * copyengine.
   */
  public static List<Algorithm> inReportOrder(Set<Algorithm> algorithms) {
    List<Algorithm> ordered = new ArrayList<>();
    for (Algorithm algorithm : ORDER) {
      if (algorithms.contains(algorithm)) {
        ordered.add(algorithm);
      }
    }
    return ordered;
  }
}
