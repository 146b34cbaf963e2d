package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;

/**
 * A view of a store whose keys all start with a prefix, so that several communicators or program
 * instances can rendezvous through one store. Closing the view leaves the store open.
 */
public final class PrefixedKeyValueStore implements KeyValueStore {
  private final KeyValueStore store;
  private final String prefix;

  public PrefixedKeyValueStore(KeyValueStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  @Override
  public void set(String key, byte[] value) {
    store.set(prefix + key, value);
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    return store.get(prefix + key, timeout);
  }

  @Override
  public long add(String key, long delta) {
    return store.add(prefix + key, delta);
  }

  @Override
  public void barrier(String name, int participants, Duration timeout) {
    store.barrier(prefix + name, participants, timeout);
  }

  @Override
  public void close() {
    // The underlying store belongs to the caller.
  }
}
