package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import jcuda.driver.JCudaDriver;

/**
 * One cuMemAlloc allocation, owned: closing it frees the memory. Every allocation can be shared
 * with the node's other ranks through CUDA IPC (legacy IPC needs cuMemAlloc memory).
 */
final class CudaBuffer implements ShareableBuffer {
  private final CudaDevice device;
  private final JCudaHandles.DevicePointer pointer;
  private final long address;
  private final long byteSize;
  private final NativeHandle state;
  private IpcHandle ipcHandle;

  CudaBuffer(CudaDevice device, JCudaHandles.DevicePointer pointer, long byteSize) {
    this.device = device;
    this.pointer = pointer;
    this.address = pointer.address();
    this.byteSize = byteSize;
    this.state =
        new NativeHandle(
            "cuda buffer 0x"
                + Long.toHexString(address)
                + " ("
                + byteSize
                + " B) on device "
                + device.ordinal());
  }

  @Override
  public long address() {
    state.checkOpen();
    return address;
  }

  @Override
  public long byteSize() {
    return byteSize;
  }

  @Override
  public DeviceBuffer slice(long offset, long bytes) {
    state.checkOpen();
    return new CudaBufferView(
        state, address + CudaBufferView.checkSlice(offset, bytes, byteSize), bytes);
  }

  /** The IPC handle of this allocation; the allocation starts at its own base, so offset 0. */
  @Override
  public synchronized IpcHandle handle() {
    state.checkOpen();
    if (ipcHandle == null) {
      device.bind();
      ipcHandle = new IpcHandle(device.api().ipcHandle(address, device.ordinal()), 0, byteSize);
    }
    return ipcHandle;
  }

  NativeHandle state() {
    return state;
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      device.check(JCudaDriver.cuMemFree(pointer), "cuMemFree");
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
