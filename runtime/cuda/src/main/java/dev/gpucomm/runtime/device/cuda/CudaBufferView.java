package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.runtime.device.DeviceBuffer;

/**
 * A range inside device memory someone else owns (an allocation or a peer mapping); closing a view
 * does nothing, and using it after its owner closed throws.
 */
final class CudaBufferView implements DeviceBuffer {
  private final NativeHandle owner;
  private final long address;
  private final long byteSize;

  CudaBufferView(NativeHandle owner, long address, long byteSize) {
    this.owner = owner;
    this.address = address;
    this.byteSize = byteSize;
  }

  @Override
  public long address() {
    owner.checkOpen();
    return address;
  }

  @Override
  public long byteSize() {
    return byteSize;
  }

  @Override
  public DeviceBuffer slice(long offset, long bytes) {
    return new CudaBufferView(owner, address + checkSlice(offset, bytes, byteSize), bytes);
  }

  @Override
  public void close() {
    // A view owns nothing.
  }

  static long checkSlice(long offset, long bytes, long byteSize) {
    if (offset < 0 || bytes < 0 || offset > byteSize - bytes) {
      throw new IndexOutOfBoundsException(
          "slice [" + offset + ", " + offset + " + " + bytes + ") outside " + byteSize + " bytes");
    }
    return offset;
  }

  @Override
  public String toString() {
    return "view of " + owner + " at 0x" + Long.toHexString(address) + " (" + byteSize + " B)";
  }
}
