package dev.gpucomm.runtime.fabric;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Brings every rank's view of the fabric to rank 0 through the store, so that one place can say
 * which transport each rank's connections took.
 */
public final class FabricGather {
  private static final String KEY = "fabric/rank-";
  private static final String HOST_KEY = "fabric/host-";

  private FabricGather() {}

  /**
   * Publishes this rank's summary; on rank 0 returns every rank's, in rank order (empty on the
   * other ranks).
   */
  public static List<String> gather(
      FabricObservation own, KeyValueStore store, int rank, int worldSize, Duration timeout) {
    store.set(KEY + rank, own.summary().getBytes(StandardCharsets.UTF_8));
    if (rank != 0) {
      return List.of();
    }
    List<String> summaries = new ArrayList<>();
    for (int peer = 0; peer < worldSize; peer++) {
      summaries.add(new String(store.get(KEY + peer, timeout), StandardCharsets.UTF_8));
    }
    return summaries;
  }

  /**
   * The host of every rank, by rank: each rank publishes its own and reads the others' (pods are
   * hosts here: one pod per node).
   */
  public static List<String> hosts(
      String ownHost, KeyValueStore store, int rank, int worldSize, Duration timeout) {
    store.set(HOST_KEY + rank, ownHost.getBytes(StandardCharsets.UTF_8));
    List<String> hosts = new ArrayList<>();
    for (int peer = 0; peer < worldSize; peer++) {
      hosts.add(new String(store.get(HOST_KEY + peer, timeout), StandardCharsets.UTF_8));
    }
    return hosts;
  }

  /** One line per distinct summary, naming its ranks: {@code ranks 0-1: intra-node p2p (NVL)}. */
  public static List<String> describe(List<String> summaries) {
    List<String> lines = new ArrayList<>();
    List<String> distinct = summaries.stream().distinct().toList();
    for (String summary : distinct) {
      List<Integer> ranks = new ArrayList<>();
      for (int rank = 0; rank < summaries.size(); rank++) {
        if (summaries.get(rank).equals(summary)) {
          ranks.add(rank);
        }
      }
      lines.add((ranks.size() == 1 ? "rank " : "ranks ") + join(ranks) + ": " + summary);
    }
    return lines;
  }

  private static String join(List<Integer> ranks) {
    return String.join(",", ranks.stream().map(String::valueOf).toList());
  }
}
