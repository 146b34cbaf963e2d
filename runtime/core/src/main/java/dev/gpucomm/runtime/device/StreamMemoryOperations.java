package dev.gpucomm.runtime.device;

/**
 * Stream-ordered 32-bit writes and waits on device memory, including peer mappings (CUDA's
 * cuStreamWriteValue32 and cuStreamWaitValue32): what point-to-point protocols over IPC use as
 * semaphores. A {@link Device} that can do this implements this interface as well; callers test
 * with {@code instanceof}.
 */
public interface StreamMemoryOperations {
  /**
   * Writes {@code value} to the 32-bit word at {@code byteOffset} once the work enqueued on {@code
   * stream} before it is done, with a system-wide memory fence before the write, so that a peer
   * that sees the value also sees the data written before it.
   */
  void writeValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream);

  /**
   * Makes later work on {@code stream} wait until the 32-bit word at {@code byteOffset} equals
   * {@code value}; the host does not block.
   */
  void waitValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream);
}
