package dev.gpucomm.runtime.device;

/** A marker in a stream, used to order streams and to time device work. */
public interface Event extends AutoCloseable {
  void record(Stream stream);

  /** Blocks the host until the recorded work has finished. */
  void synchronize();

  /** Device time between {@code start} and this event, both recorded and finished. */
  float elapsedMillisSince(Event start);

  @Override
  void close();
}
