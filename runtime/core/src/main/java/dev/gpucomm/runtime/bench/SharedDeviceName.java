package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RankZeroChoice;
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
    return RankZeroChoice.agree(store, key, rank, timeout, () -> ownDeviceName);
  }
}
