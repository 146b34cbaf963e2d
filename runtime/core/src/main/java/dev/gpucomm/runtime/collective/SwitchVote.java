package dev.gpucomm.runtime.collective;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;
import java.util.Optional;

/**
 * A count, through the store, of the ranks of a group on which a path is usable (NCCL, peer
 * memory), for paths every rank of the group must take or none: a rank without it never joins the
 * others' setup, and they would wait for it until the rendezvous timeout and then name a key. Each
 * rank decides from its own environment and libraries, which differ where pods were given different
 * settings or images.
 */
public final class SwitchVote {
  private SwitchVote() {}

  /**
   * Counts the {@code participants} ranks that call this with the same {@code key} and the number
   * of those on which the path is {@code usable}. A key counts one vote: each communicator's keys
   * are its own.
   *
   * @return empty when every rank or none can use the path; else a line saying how many can, and
   *     why this rank can or cannot ({@code ownState})
   */
  static Optional<String> disagreement(
      KeyValueStore store,
      String key,
      boolean usable,
      String path,
      String ownState,
      int rank,
      int participants,
      Duration timeout) {
    store.add(key, usable ? 1 : 0);
    store.barrier(key + "/counted", participants, timeout);
    long usableRanks = store.add(key, 0);
    if (usableRanks > participants) {
      throw new IllegalStateException(
          "rendezvous: %s counted %d of %d ranks: a vote was taken twice under one key"
              .formatted(key, usableRanks, participants));
    }
    if (usableRanks == 0 || usableRanks == participants) {
      return Optional.empty();
    }
    return Optional.of(
        ("%s is usable on %d of %d ranks (rank %d: %s): the ranks must all use it or none;"
                + " give every pod the same settings and libraries")
            .formatted(path, usableRanks, participants, rank, ownState));
  }

  /**
   * As {@link #disagreement}, for a group that cannot go on divided.
   *
   * @throws IllegalStateException with the disagreement's line, on every rank of the group
   */
  public static void requireUnanimous(
      KeyValueStore store,
      String key,
      boolean usable,
      String path,
      String ownState,
      int rank,
      int participants,
      Duration timeout) {
    disagreement(store, key, usable, path, ownState, rank, participants, timeout)
        .ifPresent(
            line -> {
              throw new IllegalStateException(line);
            });
  }
}
