package dev.gpucomm.runtime.testing;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import dev.gpucomm.runtime.rendezvous.RendezvousTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A rendezvous store shared by threads of one test, standing in for the job's store. */
public final class InMemoryStore implements KeyValueStore {
  private final Map<String, byte[]> values = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();

  @Override
  public synchronized void set(String key, byte[] value) {
    values.put(key, value.clone());
    notifyAll();
  }

  @Override
  public synchronized byte[] get(String key, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!values.containsKey(key)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new RendezvousTimeoutException("key " + key + " not set within " + timeout);
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RendezvousTimeoutException("interrupted waiting for " + key);
      }
    }
    return values.get(key).clone();
  }

  @Override
  public synchronized long add(String key, long delta) {
    long value = counters.merge(key, delta, Long::sum);
    notifyAll();
    return value;
  }

  @Override
  public synchronized void barrier(String name, int participants, Duration timeout) {
    long generation = add("barrier/" + name, 1);
    long target = ((generation - 1) / participants + 1) * participants;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (counters.get("barrier/" + name) < target) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new RendezvousTimeoutException("barrier " + name + " not reached within " + timeout);
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RendezvousTimeoutException("interrupted in barrier " + name);
      }
    }
  }

  @Override
  public void close() {}
}
