package dev.gpucomm.runtime.hostir;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A store view that counts the calls it passes on; closing leaves the store open. */
public final class CountingStore implements KeyValueStore {
  private final KeyValueStore delegate;
  public final AtomicInteger calls = new AtomicInteger();
  public final AtomicInteger barriers = new AtomicInteger();

  public CountingStore(KeyValueStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public void set(String key, byte[] value) {
    calls.incrementAndGet();
    delegate.set(key, value);
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    calls.incrementAndGet();
    return delegate.get(key, timeout);
  }

  @Override
  public long add(String key, long delta) {
    calls.incrementAndGet();
    return delegate.add(key, delta);
  }

  @Override
  public void barrier(String name, int participants, Duration timeout) {
    calls.incrementAndGet();
    barriers.incrementAndGet();
    delegate.barrier(name, participants, timeout);
  }

  @Override
  public void close() {}
}
