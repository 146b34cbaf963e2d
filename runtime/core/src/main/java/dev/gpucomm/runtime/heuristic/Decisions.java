package dev.gpucomm.runtime.heuristic;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a heuristic's preferred algorithm into a {@link Decision} the communicator can run, and
 * logs it.
 *
 * <p>A preferred algorithm that is not in {@link SizeQuery#available()} is replaced by the next one
 * along oneshot → twoshot → nccl → ring (a smaller-message algorithm is replaced by a
 * larger-message one, and nccl by its CPU stand-in ring); when none after it is available, the
 * nearest one before it is taken. Hierarchical is replaced by nccl, else ring. The reason then says
 * what was replaced and by what.
 */
final class Decisions {
  /** The order in which an unavailable pick is replaced. */
  static final List<Algorithm> FALLBACK_ORDER =
      List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.NCCL, Algorithm.RING);

  private static final Logger LOG = System.getLogger(Decisions.class.getPackageName());

  private Decisions() {}

  /**
   * The decision for {@code preferred}, or for its fallback when the communicator cannot run it.
   *
   * @throws IllegalArgumentException when the query offers no algorithm at all
   */
  static Decision settle(String heuristic, SizeQuery query, Algorithm preferred, String reason) {
    Set<Algorithm> available = query.available();
    Decision decision;
    if (available.contains(preferred)) {
      decision = new Decision(preferred, reason);
    } else {
      Algorithm replacement =
          fallbackFor(preferred, available)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no algorithm to choose from: the communicator offers "
                              + (available.isEmpty() ? "none" : available)
                              + " for "
                              + query.collective()));
      decision =
          new Decision(
              replacement, reason + "; " + preferred + " is not available here → " + replacement);
    }
    LOG.log(
        Level.DEBUG,
        () ->
            heuristic
                + " chose "
                + decision.algorithm()
                + " for "
                + query.collective()
                + " "
                + query.bytes()
                + " B ("
                + query.tokens().stream().mapToObj(t -> "tokens " + t + ", ").findFirst().orElse("")
                + "hidden "
                + query.hiddenSize()
                + ", "
                + query.dtype()
                + ", world "
                + query.worldSize()
                + ", "
                + query.ranksPerNode()
                + " per node, cc "
                + query.computeCapability().map(Object::toString).orElse("none")
                + ", available "
                + available
                + "): "
                + decision.reason());
    return decision;
  }

  /**
   * The first available algorithm after {@code preferred} in the chain, else the nearest before.
   */
  static Optional<Algorithm> fallbackFor(Algorithm preferred, Set<Algorithm> available) {
    int position = FALLBACK_ORDER.indexOf(preferred);
    List<Algorithm> candidates = new ArrayList<>();
    if (preferred == Algorithm.HIERARCHICAL) {
      // Its flat counterpart first: hierarchical exists for jobs that span pods, where the IPC
      // algorithms cannot run.
      candidates.addAll(List.of(Algorithm.NCCL, Algorithm.RING));
      candidates.addAll(FALLBACK_ORDER);
    } else if (position < 0) {
      candidates.addAll(FALLBACK_ORDER);
    } else {
      candidates.addAll(FALLBACK_ORDER.subList(position + 1, FALLBACK_ORDER.size()));
      for (int i = position - 1; i >= 0; i--) {
        candidates.add(FALLBACK_ORDER.get(i));
      }
    }
    return candidates.stream().filter(available::contains).findFirst();
  }
}
