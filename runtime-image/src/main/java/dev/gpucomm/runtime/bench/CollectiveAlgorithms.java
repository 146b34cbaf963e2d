package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.runtime.collective.Communicator;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which algorithms a communicator runs for each collective. The peer-memory kernels (oneshot,
 * twoshot) are all-reduce kernels; the other collectives run the library path: nccl, or its CPU
 * stand-in ring (a collective permute has no algorithm choice and is labelled with it too).
 */
public final class CollectiveAlgorithms {
  /** The order algorithms are listed in when a job names none. */
  private static final Algorithm[] ORDER = {
    Algorithm.NCCL, Algorithm.RING, Algorithm.ONESHOT, Algorithm.TWOSHOT
  };

  private CollectiveAlgorithms() {}

  public static Set<Algorithm> available(Communicator communicator, Collective collective) {
    Set<Algorithm> allReduce = EnumSet.noneOf(Algorithm.class);
    allReduce.addAll(communicator.allReduceAlgorithms());
    allReduce.remove(Algorithm.AUTO);
    if (collective == Collective.ALLREDUCE) {
      return allReduce;
    }
    allReduce.retainAll(EnumSet.of(Algorithm.NCCL, Algorithm.RING));
    return allReduce;
  }

  /** {@link #available} in the order reports list them: nccl, ring, oneshot, twoshot. */
  public static java.util.List<Algorithm> inReportOrder(Set<Algorithm> algorithms) {
    java.util.List<Algorithm> ordered = new java.util.ArrayList<>();
    for (Algorithm algorithm : ORDER) {
      if (algorithms.contains(algorithm)) {
        ordered.add(algorithm);
      }
    }
    return ordered;
  }
}
