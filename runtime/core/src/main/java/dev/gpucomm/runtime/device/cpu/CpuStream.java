package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An in-order queue of kernels run by one daemon worker thread: the CPU analog of a CUDA stream.
 *
 * <p>{@link #launch} is the CPU backend's kernel launch: it queues a {@link CpuKernel} and returns
 * at once. When a kernel throws, the stream records the failure and skips its later kernels (event
 * markers still run, so nothing waiting on them hangs) until {@link #synchronize()} reports the
 * failure as a {@link CpuKernelFailedException}; then the stream runs kernels again.
 *
 * <p>While a graph is being captured on the stream, launches are recorded into the graph instead of
 * running, and host-blocking calls on the stream are refused, as on CUDA.
 */
public final class CpuStream implements Stream {
  private static final Launch STOP = new Launch("stop", () -> {}, true);

  private final CpuDevice device;
  private final String name;
  private final Duration waitTimeout;
  private final Runnable onClose;
  private final LinkedBlockingQueue<Launch> queue = new LinkedBlockingQueue<>();
  private final Thread worker;
  private final Object progress = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Entries queued so far; guarded by {@code this}, which also keeps queue order. */
  private long submitted;

  /** Entries the worker has finished (or skipped); written by the worker only. */
  private volatile long completed;

  private volatile int waiters;

  /** The first unreported failure and its kernel; guarded by {@code progress}. */
  private volatile Throwable failure;

  private String failedKernel;

  /** Launches recorded by an ongoing graph capture, or null; guarded by {@code this}. */
  private List<Launch> capture;

  CpuStream(CpuDevice device, String name, Duration waitTimeout, Runnable onClose) {
    this.device = device;
    this.name = name;
    this.waitTimeout = waitTimeout;
    this.onClose = onClose;
    this.worker = Thread.ofPlatform().name(name).daemon().unstarted(this::runQueue);
    worker.start();
  }

  /** The CPU stream behind {@code stream}; rejects streams of other backends. */
  public static CpuStream of(Stream stream) {
    if (stream instanceof CpuStream cpu) {
      return cpu;
    }
    throw new IllegalArgumentException(
        "the cpu backend cannot use "
            + (stream == null ? "a null stream" : stream.getClass().getSimpleName()));
  }

  public CpuDevice device() {
    return device;
  }

  public String name() {
    return name;
  }

  /**
   * Queues {@code kernel} behind the work already on this stream (or records it into the graph
   * being captured). {@code kernelName} names the kernel in failure messages.
   */
  public void launch(String kernelName, CpuKernel kernel) {
    enqueue(new Launch(kernelName, kernel, false));
  }

  /** Queues a kernel that runs even after an earlier kernel failed: event markers. */
  void launchMarker(String kernelName, CpuKernel kernel) {
    synchronized (this) {
      if (capture != null) {
        throw new IllegalStateException(
            kernelName + ": events cannot be recorded into a graph capture on the cpu backend");
      }
      enqueue(new Launch(kernelName, kernel, true));
    }
  }

  private synchronized void enqueue(Launch launch) {
    checkOpen();
    if (capture != null) {
      capture.add(launch);
    } else {
      submitted++;
      queue.add(launch);
    }
  }

  /** Queues the launches of a graph in their captured order. */
  synchronized void enqueueAll(List<Launch> launches) {
    checkOpen();
    if (capture != null) {
      capture.addAll(launches); // replaying inside a capture nests the graph
    } else {
      submitted += launches.size();
      queue.addAll(launches);
    }
  }

  synchronized boolean isCapturing() {
    return capture != null;
  }

  synchronized void beginCapture() {
    checkOpen();
    if (capture != null) {
      throw new IllegalStateException(name + " is already capturing a graph");
    }
    capture = new ArrayList<>();
  }

  /** Ends the capture and returns what it recorded. */
  synchronized List<Launch> endCapture() {
    List<Launch> captured = capture;
    capture = null;
    return captured == null ? List.of() : List.copyOf(captured);
  }

  @Override
  public void synchronize() {
    refuseOnWorkerOrCapture("synchronize");
    long target;
    synchronized (this) {
      target = submitted;
    }
    awaitCompleted(target);
    reportFailure();
  }

  @Override
  public void waitFor(Event event) {
    checkOpen();
    CpuEvent cpuEvent = CpuEvent.of(event);
    if (isCapturing()) {
      throw new IllegalStateException(
          name
              + ": waiting for an event inside a graph capture is not supported on the cpu backend");
    }
    long generation = cpuEvent.recordedGeneration();
    if (generation == 0) {
      return; // as on CUDA, waiting for an event that was never recorded waits for nothing
    }
    launch("wait for " + cpuEvent, () -> cpuEvent.awaitGeneration(generation, waitTimeout, name));
  }

  /** Throws if called on this stream's own worker, or while the stream captures a graph. */
  void refuseOnWorkerOrCapture(String operation) {
    checkOpen();
    if (Thread.currentThread() == worker) {
      throw new IllegalStateException(
          operation + " on " + name + " from its own worker thread would never return");
    }
    if (isCapturing()) {
      throw new IllegalStateException(
          operation + " on " + name + " is not allowed while it captures a graph");
    }
  }

  private void awaitCompleted(long target) {
    if (completed >= target) {
      return;
    }
    synchronized (progress) {
      waiters++;
      try {
        while (completed < target) {
          progress.wait();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + name, e);
      } finally {
        waiters--;
      }
    }
  }

  private void reportFailure() {
    if (failure == null) {
      return;
    }
    Throwable cause;
    String kernel;
    synchronized (progress) {
      cause = failure;
      kernel = failedKernel;
      failure = null;
      failedKernel = null;
    }
    if (cause != null) {
      throw new CpuKernelFailedException(kernel, name, cause);
    }
  }

  private void runQueue() {
    while (true) {
      Launch launch;
      try {
        launch = queue.take();
      } catch (InterruptedException e) {
        continue; // only close() ends the worker, by queueing STOP
      }
      if (launch != STOP && (failure == null || launch.runsAfterFailure())) {
        try {
          launch.kernel().run();
        } catch (Throwable thrown) {
          synchronized (progress) {
            if (failure == null) {
              failure = thrown;
              failedKernel = launch.name();
            }
          }
        }
      }
      completed++; // only this thread writes it
      if (waiters > 0) {
        synchronized (progress) {
          progress.notifyAll();
        }
      }
      if (launch == STOP) {
        return;
      }
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(name + " is closed");
    }
  }

  /** Lets queued work finish, then stops the worker; an unreported failure is dropped. */
  @Override
  public void close() {
    if (Thread.currentThread() == worker) {
      throw new IllegalStateException(name + " cannot be closed from its own worker thread");
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (this) {
      capture = null;
      submitted++;
      queue.add(STOP);
    }
    try {
      worker.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
