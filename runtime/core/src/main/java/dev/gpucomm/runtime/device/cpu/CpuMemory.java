package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.DeviceBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A CPU-backend buffer: its memory is a {@link MemorySegment}, the CPU analog of a device pointer.
 */
public sealed interface CpuMemory extends DeviceBuffer
    permits CpuBuffer, CpuSharedBuffer, CpuPeerBuffer, CpuBufferView {

  /**
   * The buffer's memory, starting at its first byte. Throws {@link IllegalStateException} once the
   * buffer, or the buffer it is a view of, has been closed.
   */
  MemorySegment segment();

  /** The memory of a buffer this backend created; rejects buffers of other backends. */
  static MemorySegment segmentOf(DeviceBuffer buffer) {
    if (buffer instanceof CpuMemory memory) {
      return memory.segment();
    }
    throw new IllegalArgumentException(
        "the cpu backend cannot use "
            + (buffer == null ? "a null buffer" : buffer.getClass().getSimpleName()));
  }

  @Override
  default long address() {
    return segment().address();
  }

  @Override
  default long byteSize() {
    return segment().byteSize();
  }

  @Override
  default DeviceBuffer slice(long offset, long bytes) {
    MemorySegment segment = segment();
    if (offset < 0 || bytes < 0 || offset > segment.byteSize() - bytes) {
      throw new IndexOutOfBoundsException(
          "slice of "
              + bytes
              + " bytes at offset "
              + offset
              + " does not fit a buffer of "
              + segment.byteSize()
              + " bytes");
    }
    return new CpuBufferView(this, segment.asSlice(offset, bytes));
  }
}
