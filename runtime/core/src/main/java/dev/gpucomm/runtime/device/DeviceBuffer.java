package dev.gpucomm.runtime.device;

/**
 * A range of device memory. On CUDA the address is a device pointer; on the CPU backend it is the
 * native address of a memory segment. Views made by {@link #slice} share the parent's memory and
 * are not closed separately.
 */
public interface DeviceBuffer extends AutoCloseable {
  long address();

  long byteSize();

  /** A view of {@code bytes} bytes starting at {@code offset}; no memory is allocated. */
  DeviceBuffer slice(long offset, long bytes);

  @Override
  void close();
}
