package dev.gpucomm.runtime.device;

/** An in-order queue of device work (a CUDA stream, or a worker thread on the CPU backend). */
public interface Stream extends AutoCloseable {
  /** Blocks the host until all work queued so far has finished; rethrows a failure of that work. */
  void synchronize();

  /** Makes later work on this stream wait for {@code event}, without blocking the host. */
  void waitFor(Event event);

  @Override
  void close();
}
