package dev.gpucomm.runtime.device.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/** Off-heap memory private to one rank: the CPU analog of cuMemAlloc'd device memory. */
public final class CpuBuffer implements CpuMemory {
  private static final long ALIGNMENT = 64;

  private final Arena arena;
  private final MemorySegment memory;
  private final Runnable onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  CpuBuffer(long bytes, Runnable onClose) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
    }
    this.arena = Arena.ofShared();
    try {
      this.memory = arena.allocate(bytes, ALIGNMENT);
    } catch (OutOfMemoryError e) {
      // An Error would escape the rank's error report as a stack trace; a size too large for this
      // host is the user's input, so say it in one line.
      arena.close();
      throw new IllegalArgumentException(
          "the cpu backend cannot allocate "
              + bytes
              + " bytes of host memory ("
              + e.getMessage()
              + ")");
    }
    this.onClose = onClose;
  }

  @Override
  public MemorySegment segment() {
    if (closed.get()) {
      throw new IllegalStateException(this + " is closed");
    }
    return memory;
  }

  @Override
  public long byteSize() {
    return memory.byteSize();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      arena.close();
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return "cpu buffer of " + memory.byteSize() + " B";
  }
}
