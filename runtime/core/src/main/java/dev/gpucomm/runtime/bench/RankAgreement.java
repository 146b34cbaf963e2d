package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Whether every rank can go ahead with one point of a sweep: each rank publishes its own refusal
 * (or none) and reads every rank's, so that all ranks skip the point together. A rank that went
 * ahead alone would wait forever in a collective its peers never join.
 */
final class RankAgreement {
  private final KeyValueStore store;
  private final int rank;
  private final int worldSize;
  private final Duration timeout;

  RankAgreement(KeyValueStore store, int rank, int worldSize, Duration timeout) {
    this.store = store;
    this.rank = rank;
    this.worldSize = worldSize;
    this.timeout = timeout;
  }

  /**
   * The first refusal of any rank, in rank order, as "rank r: reason"; empty when every rank can go
   * ahead. {@code key} must be unique per point within the job.
   */
  Optional<String> refusal(String key, Optional<String> own) {
    store.set(key + "/" + rank, own.orElse("").getBytes(StandardCharsets.UTF_8));
    for (int other = 0; other < worldSize; other++) {
      String reason =
          other == rank
              ? own.orElse("")
              : new String(store.get(key + "/" + other, timeout), StandardCharsets.UTF_8);
      if (!reason.isEmpty()) {
        return Optional.of("rank " + other + ": " + reason);
      }
    }
    return Optional.empty();
  }
}
