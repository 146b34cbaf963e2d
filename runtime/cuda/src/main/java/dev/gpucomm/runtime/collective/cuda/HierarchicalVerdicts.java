package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Makes every rank reach the same answer on whether hierarchical all-reduce runs: each rank
 * publishes why it cannot (or that it can), and all of them read every rank's. A rank that offered
 * the algorithm while a peer could not would wait forever in its first call.
 */
final class HierarchicalVerdicts {
  private static final String USABLE = "usable";

  private HierarchicalVerdicts() {}

  /**
   * Publishes {@code ownReason} (empty when this rank can run it) under {@code keyPrefix} and
   * returns the first refusing rank's reason, naming that rank, or empty when every rank can.
   */
  static String agree(
      KeyValueStore store,
      String keyPrefix,
      RankTopology topology,
      String ownReason,
      Duration timeout) {
    String own = ownReason.isEmpty() ? USABLE : "refused: " + ownReason;
    store.set(keyPrefix + "/rank-" + topology.rank(), own.getBytes(StandardCharsets.UTF_8));
    for (int rank = 0; rank < topology.worldSize(); rank++) {
      String verdict =
          new String(store.get(keyPrefix + "/rank-" + rank, timeout), StandardCharsets.UTF_8);
      if (!verdict.equals(USABLE)) {
        return "rank " + rank + " " + verdict;
      }
    }
    return "";
  }
}
