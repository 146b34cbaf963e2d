package dev.gpucomm.runtime.rendezvous;

import java.time.Duration;

/**
 * The rendezvous store shared by a job's ranks (hosted by global rank 0): IPC handles, NCCL ids and
 * results travel through it. Every blocking call has a timeout and fails with a {@link
 * RendezvousTimeoutException} naming the key, the ranks still missing and the time waited.
 */
public interface KeyValueStore extends AutoCloseable {
  void set(String key, byte[] value);

  /** Waits until {@code key} is set and returns its value. */
  byte[] get(String key, Duration timeout);

  /** Atomically adds {@code delta} to a counter and returns the new value. */
  long add(String key, long delta);

  /**
   * Waits until every rank of the world (or of {@code group} ranks) has entered the named barrier.
   */
  void barrier(String name, int participants, Duration timeout);

  @Override
  void close();
}
