package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;
import jcuda.driver.JCudaDriver;

/**
 * A CUDA event, with timing enabled or (for events that only order streams) disabled; recording
 * goes through the FFM hot path.
 */
final class CudaEvent implements Event {
  private final CudaDevice device;
  private final JCudaHandles.Event event;
  private final MemorySegment segment;
  private final NativeHandle state;
  private final float[] elapsed = new float[1];

  private static final int DISABLE_TIMING = 0x2;

  CudaEvent(CudaDevice device) {
    this(device, true);
  }

  CudaEvent(CudaDevice device, boolean timing) {
    this.device = device;
    device.bind();
    this.event = new JCudaHandles.Event();
    device.check(JCudaDriver.cuEventCreate(event, timing ? 0 : DISABLE_TIMING), "cuEventCreate");
    this.segment = event.segment();
    this.state =
        new NativeHandle("cuda event " + segment.address() + " on device " + device.ordinal());
  }

  JCudaHandles.Event jcuda() {
    state.checkOpen();
    return event;
  }

  @Override
  public void record(Stream stream) {
    state.checkOpen();
    device.bind();
    CudaStream cudaStream = CudaDevice.cast(stream, CudaStream.class);
    device.check(device.api().recordEvent(segment, cudaStream.segment()), "cuEventRecord");
  }

  @Override
  public void synchronize() {
    state.checkOpen();
    device.bind();
    device.check(JCudaDriver.cuEventSynchronize(event), "cuEventSynchronize");
  }

  @Override
  public float elapsedMillisSince(Event start) {
    state.checkOpen();
    device.bind();
    synchronized (elapsed) {
      device.check(
          JCudaDriver.cuEventElapsedTime(
              elapsed, CudaDevice.cast(start, CudaEvent.class).jcuda(), event),
          "cuEventElapsedTime");
      return elapsed[0];
    }
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      device.check(JCudaDriver.cuEventDestroy(event), "cuEventDestroy");
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
