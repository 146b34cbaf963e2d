package dev.gpucomm.runtime.device.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The memory of a buffer that owns its arena: refused once the buffer is closed, and freed by
 * whichever close comes first, so that the buffers built on it close idempotently.
 */
final class ArenaMemory {
  private final Arena arena;
  private final MemorySegment memory;
  private final AtomicBoolean closed = new AtomicBoolean();

  ArenaMemory(Arena arena, MemorySegment memory) {
    this.arena = arena;
    this.memory = memory;
  }

  /** The memory; {@code owner} names the buffer in the error once it is closed. */
  MemorySegment segment(Object owner) {
    if (closed.get()) {
      throw new IllegalStateException(owner + " is closed");
    }
    return memory;
  }

  long byteSize() {
    return memory.byteSize();
  }

  /** True for the first caller only, which must then {@link #free} the memory. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  void free() {
    arena.close();
  }
}
