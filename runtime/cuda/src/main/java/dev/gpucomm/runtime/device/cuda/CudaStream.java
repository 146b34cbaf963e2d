package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;
import jcuda.driver.JCudaDriver;

/** A non-blocking CUDA stream (it never synchronizes with the legacy default stream). */
final class CudaStream implements Stream {
  private static final int CU_STREAM_NON_BLOCKING = 1;

  private final CudaDevice device;
  private final JCudaHandles.Stream stream;
  private final MemorySegment segment;
  private final NativeHandle state;

  CudaStream(CudaDevice device) {
    this.device = device;
    device.bind();
    this.stream = new JCudaHandles.Stream();
    device.check(JCudaDriver.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    this.segment = stream.segment();
    this.state =
        new NativeHandle("cuda stream " + segment.address() + " on device " + device.ordinal());
  }

  /** The raw CUstream for FFM calls and NCCL. */
  MemorySegment segment() {
    state.checkOpen();
    return segment;
  }

  JCudaHandles.Stream jcuda() {
    state.checkOpen();
    return stream;
  }

  CudaDevice device() {
    return device;
  }

  @Override
  public void synchronize() {
    state.checkOpen();
    device.bind();
    device.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }

  @Override
  public void waitFor(Event event) {
    state.checkOpen();
    device.bind();
    device.check(
        JCudaDriver.cuStreamWaitEvent(stream, CudaDevice.cast(event, CudaEvent.class).jcuda(), 0),
        "cuStreamWaitEvent");
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      device.check(JCudaDriver.cuStreamDestroy(stream), "cuStreamDestroy");
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
