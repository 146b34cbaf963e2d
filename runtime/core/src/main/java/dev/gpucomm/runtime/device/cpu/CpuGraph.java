package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The kernels a stream recorded during a capture, replayed in the same order with the same
 * arguments. Kernels read their dynamic state (collective epochs, channel counters) when they run,
 * so a captured collective stays correct however often it is replayed.
 */
public final class CpuGraph implements Graph {
  private final CpuDevice device;
  private final List<Launch> launches;
  private final Runnable onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  CpuGraph(CpuDevice device, List<Launch> launches, Runnable onClose) {
    this.device = device;
    this.launches = launches;
    this.onClose = onClose;
  }

  /** How many kernels one replay runs. */
  public int kernelCount() {
    return launches.size();
  }

  @Override
  public void replay(Stream stream) {
    if (closed.get()) {
      throw new IllegalStateException(this + " is closed");
    }
    CpuStream cpuStream = CpuStream.of(stream);
    if (cpuStream.device() != device) {
      throw new IllegalArgumentException(
          "a graph captured on " + device + " cannot be replayed on " + cpuStream);
    }
    cpuStream.enqueueAll(launches);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return "cpu graph of " + launches.size() + " kernels";
  }
}
