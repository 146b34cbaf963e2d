package dev.gpucomm.runtime.device.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Off-heap memory private to one rank: the CPU analog of cuMemAlloc'd device memory. */
public final class CpuBuffer implements CpuMemory {
  private static final long ALIGNMENT = 64;

  private final ArenaMemory memory;
  private final Runnable onClose;

  CpuBuffer(long bytes, Runnable onClose) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
    }
    Arena arena = Arena.ofShared();
    try {
      this.memory = new ArenaMemory(arena, arena.allocate(bytes, ALIGNMENT));
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
    return memory.segment(this);
  }

  @Override
  public long byteSize() {
    return memory.byteSize();
  }

  @Override
  public void close() {
    if (memory.markClosed()) {
      memory.free();
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return "cpu buffer of " + memory.byteSize() + " B";
  }
}
