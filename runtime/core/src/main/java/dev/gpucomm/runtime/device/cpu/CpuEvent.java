package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A marker kernel in a stream that notes when it ran (System.nanoTime): timing between two events
 * is wall time between their markers, which on the CPU backend is the time the work between them
 * took. Only the latest record counts, as on CUDA.
 */
public final class CpuEvent implements Event {
  private final String name;
  private final String markerName;
  private final Runnable onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  // Guarded by this.
  private long recorded;
  private long completed;
  private long completedAtNanos;

  CpuEvent(String name, Runnable onClose) {
    this.name = name;
    this.markerName = "record " + name;
    this.onClose = onClose;
  }

  /** The CPU event behind {@code event}; rejects events of other backends. */
  public static CpuEvent of(Event event) {
    if (event instanceof CpuEvent cpu) {
      return cpu;
    }
    throw new IllegalArgumentException(
        "the cpu backend cannot use "
            + (event == null ? "a null event" : event.getClass().getSimpleName()));
  }

  @Override
  public void record(Stream stream) {
    checkOpen();
    CpuStream cpuStream = CpuStream.of(stream);
    long generation;
    synchronized (this) {
      generation = ++recorded;
    }
    cpuStream.launchMarker(markerName, () -> markCompleted(generation));
  }

  private synchronized void markCompleted(long generation) {
    if (generation > completed) {
      completed = generation;
      completedAtNanos = System.nanoTime();
      notifyAll();
    }
  }

  synchronized long recordedGeneration() {
    return recorded;
  }

  /** Runs on a stream's worker: waits until record {@code generation} has run, or times out. */
  synchronized void awaitGeneration(long generation, Duration timeout, String waiter)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (completed < generation) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new IllegalStateException(
            waiter
                + " waited "
                + timeout.toMillis()
                + " ms for "
                + name
                + ", recorded on another stream, which never reached it");
      }
      wait(Math.max(1, remaining / 1_000_000));
    }
  }

  @Override
  public synchronized void synchronize() {
    checkOpen();
    long target = recorded;
    try {
      while (completed < target) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
  }

  @Override
  public float elapsedMillisSince(Event start) {
    CpuEvent startEvent = CpuEvent.of(start);
    return (completedAtNanos() - startEvent.completedAtNanos()) / 1e6f;
  }

  private synchronized long completedAtNanos() {
    checkOpen();
    if (recorded == 0) {
      throw new IllegalStateException(name + " was never recorded");
    }
    if (completed < recorded) {
      throw new IllegalStateException(name + " has not completed yet: synchronize it first");
    }
    return completedAtNanos;
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(name + " is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
