package dev.gpucomm.runtime.rendezvous;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A choice every rank must make alike, made by rank 0 and handed to the others through the store.
 * Ranks that each chose for themselves could choose differently (a setting a ConfigMap edit changed
 * while the pods started, a random draw, a GPU model of another node pool) and then take different
 * paths through a collective.
 */
public final class RankZeroChoice {
  private RankZeroChoice() {}

  /**
   * On rank 0, makes the choice with {@code rankZerosChoice} and publishes it under {@code key}; on
   * every other rank, waits up to {@code timeout} for rank 0's and returns it. Only rank 0 calls
   * {@code rankZerosChoice}.
   */
  public static String agree(
      KeyValueStore store,
      String key,
      int rank,
      Duration timeout,
      Supplier<String> rankZerosChoice) {
    if (rank == 0) {
      String choice = rankZerosChoice.get();
      store.set(key, choice.getBytes(StandardCharsets.UTF_8));
      return choice;
    }
    return new String(store.get(key, timeout), StandardCharsets.UTF_8);
  }
}
