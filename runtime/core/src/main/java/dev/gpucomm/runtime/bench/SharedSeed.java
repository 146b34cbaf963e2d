package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
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
    if (rank == 0) {
      long seed = new SecureRandom().nextLong();
      store.set(key, Long.toString(seed).getBytes(StandardCharsets.UTF_8));
      return seed;
    }
    return Long.parseLong(new String(store.get(key, timeout), StandardCharsets.UTF_8));
  }
}
