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
    this.memory = arena.allocate(bytes, ALIGNMENT);
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
