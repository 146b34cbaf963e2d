package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RankZeroChoice;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * The seed of a sweep's inputs, the same on every rank: the job's when it names one, else rank 0
 * draws a fresh one and shares it through the store (every rank must regenerate every other rank's
 * inputs for validation).
 */
public final class SharedSeed {
  private SharedSeed() {}

  public static long agree(
      Long jobSeed, KeyValueStore store, String key, int rank, Duration timeout) {
    if (jobSeed != null) {
      return jobSeed;
    }
    return Long.parseLong(
        RankZeroChoice.agree(
            store, key, rank, timeout, () -> Long.toString(new SecureRandom().nextLong())));
  }
}
