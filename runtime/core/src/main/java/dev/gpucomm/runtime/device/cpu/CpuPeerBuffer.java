package dev.gpucomm.runtime.device.cpu;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A peer's shareable buffer mapped into this rank (the CPU analog of cuIpcOpenMemHandle). Closing
 * it drops its reference to the shared mapping; the file stays mapped while other buffers use it.
 */
public final class CpuPeerBuffer implements CpuMemory {
  private final PeerMapping mapping;
  private final MemorySegment range;
  private final AtomicBoolean closed = new AtomicBoolean();

  CpuPeerBuffer(PeerMapping mapping, MemorySegment range) {
    this.mapping = mapping;
    this.range = range;
  }

  @Override
  public MemorySegment segment() {
    if (closed.get() || !mapping.isMapped()) {
      throw new IllegalStateException(this + " is closed");
    }
    return range;
  }

  @Override
  public long byteSize() {
    return range.byteSize();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      mapping.release();
    }
  }

  @Override
  public String toString() {
    return "peer buffer of " + range.byteSize() + " B in " + mapping;
  }
}
