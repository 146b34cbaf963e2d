package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The device model whose tuning curves a sweep's automatic choices follow: rank 0's, shared through
 * the store. Every rank must choose the same algorithm for a size, and a job whose pods landed on
 * two GPU models (two node pools) would otherwise read two curves of a table tuned on both.
 */
final class SharedDeviceName {
  private SharedDeviceName() {}

  static String agree(
      String ownDeviceName, KeyValueStore store, String key, int rank, Duration timeout) {
    if (rank == 0) {
      store.set(key, ownDeviceName.getBytes(StandardCharsets.UTF_8));
      return ownDeviceName;
    }
    return new String(store.get(key, timeout), StandardCharsets.UTF_8);
  }
}
