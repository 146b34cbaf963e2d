package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;

/**
 * What a single-node rule chooses for a job that spans pods: the IPC algorithms only reach the
 * ranks of one pod, so the choice is between the flat algorithm (nccl, the ring on the CPU backend)
 * and hierarchical all-reduce, and the reason says that the rule did not apply.
 *
 * <p>Hierarchical crosses pods in 2 (pods − 1) steps, each moving a shard, where the flat ring
 * crosses them in every one of its 2 (world − 1) steps; it needs more than one rank per pod to gain
 * anything, and a message large enough that its extra stages are not all overhead. {@link
 * #HIERARCHICAL_MIN_BYTES} is that size as a starting point; a tuned {@code measured} heuristic
 * replaces it with curves of the job's own layout.
 *
 * <p>That gain comes from crossing a network fewer times. Pods that reach each other over a peer
 * path of one host ({@link PodLink.Kind#PEER}: pods sharing a node, NCCL connecting their GPUs over
 * NVLink, PCIe or shared memory) give flat nccl every GPU at peer speed, and hierarchical only adds
 * its stages, so nccl is chosen there. A network link, or one not observed, keeps the rule above.
 */
final class AcrossPods {
  /** The smallest per-rank all-reduce for which hierarchical is chosen. */
  static final long HIERARCHICAL_MIN_BYTES = 4 << 10;

  private AcrossPods() {}

  /** True when the query's ranks do not all share one node (pod). */
  static boolean applies(SizeQuery query) {
    return query.ranksPerNode() < query.worldSize();
  }

  /**
   * The decision for a query that spans pods, logged as {@code heuristic}'s, whose rule ({@code
   * rule}, e.g. "FlashInfer's one-shot/two-shot rule") covers one node only.
   */
  static Decision choose(String heuristic, String rule, SizeQuery query) {
    int pods = query.worldSize() / query.ranksPerNode();
    String spans =
        "spans %d pods of %d ranks (world %d): %s is single-node; using "
            .formatted(pods, query.ranksPerNode(), query.worldSize(), rule);
    return decide(heuristic, spans, query);
  }

  /**
   * The decision for a query that spans pods when {@code heuristic} has nothing of its own for its
   * layout ({@code missing} says what it lacks): this class's rule, with the reason saying so.
   */
  static Decision fallback(String heuristic, String missing, SizeQuery query) {
    return decide(heuristic, missing + "; falling back to the across-pods rule: ", query);
  }

  private static Decision decide(String heuristic, String spans, SizeQuery query) {
    if (query.collective() != Collective.ALLREDUCE) {
      return Decisions.settle(heuristic, query, Algorithm.NCCL, spans + "nccl");
    }
    if (query.ranksPerNode() == 1) {
      return Decisions.settle(
          heuristic,
          query,
          Algorithm.NCCL,
          spans + "nccl (one rank per pod: hierarchical would be the same ring)");
    }
    if (!query.available().contains(Algorithm.HIERARCHICAL)) {
      return Decisions.settle(
          heuristic, query, Algorithm.NCCL, spans + "nccl (hierarchical is not available here)");
    }
    PodLink link = query.podLink();
    if (link.kind() == PodLink.Kind.PEER) {
      return Decisions.settle(
          heuristic,
          query,
          Algorithm.NCCL,
          spans
              + "nccl (pods reach each other over %s: flat nccl sees every GPU,"
                  .formatted(link.seen())
              + " hierarchical only adds steps)");
    }
    if (query.bytes() < HIERARCHICAL_MIN_BYTES) {
      return Decisions.settle(
          heuristic,
          query,
          Algorithm.NCCL,
          spans + "nccl (%d B per rank < %d B)".formatted(query.bytes(), HIERARCHICAL_MIN_BYTES));
    }
    return Decisions.settle(
        heuristic,
        query,
        Algorithm.HIERARCHICAL,
        spans
            + "hierarchical (%d B per rank ≥ %d B, %d ranks per pod; %s)"
                .formatted(
                    query.bytes(), HIERARCHICAL_MIN_BYTES, query.ranksPerNode(), linkNote(link)));
  }

  private static String linkNote(PodLink link) {
    return switch (link.kind()) {
      case PEER, NETWORK -> "pods reach each other over " + link.seen();
      case UNKNOWN -> "how pods reach each other is unknown: " + link.seen();
    };
  }
}
