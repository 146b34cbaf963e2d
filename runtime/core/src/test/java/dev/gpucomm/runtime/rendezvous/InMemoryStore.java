package dev.gpucomm.runtime.rendezvous;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A rendezvous store for ranks that run as threads of one JVM: the same contract as the job's TCP
 * store (timeouts included), without the network. A barrier name is meant to be used once.
 */
public final class InMemoryStore implements KeyValueStore {
  private final Map<String, byte[]> values = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();
  private final Map<String, Integer> arrivals = new HashMap<>();
  private boolean closed;

  @Override
  public synchronized void set(String key, byte[] value) {
    checkOpen();
    values.put(key, value.clone());
    notifyAll();
  }

  @Override
  public synchronized byte[] get(String key, Duration timeout) {
    checkOpen();
    awaitUntil(() -> values.containsKey(key), timeout, () -> "key '" + key + "' was not set");
    return values.get(key).clone();
  }

  @Override
  public synchronized long add(String key, long delta) {
    checkOpen();
    long value = counters.merge(key, delta, Long::sum);
    notifyAll();
    return value;
  }

  @Override
  public synchronized void barrier(String name, int participants, Duration timeout) {
    checkOpen();
    arrivals.merge(name, 1, Integer::sum);
    notifyAll();
    awaitUntil(
        () -> arrivals.get(name) >= participants,
        timeout,
        () -> "barrier '" + name + "': " + arrivals.get(name) + " of " + participants + " arrived");
  }

  private void awaitUntil(BooleanSupplier done, Duration timeout, Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new RendezvousTimeoutException(what.get() + " within " + timeout.toMillis() + " ms");
      }
      try {
        wait(Math.max(1, remaining / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RendezvousTimeoutException("interrupted while waiting: " + what.get());
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the store is closed");
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
  }
}
