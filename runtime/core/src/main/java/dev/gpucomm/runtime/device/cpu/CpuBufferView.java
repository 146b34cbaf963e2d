package dev.gpucomm.runtime.device.cpu;

import java.lang.foreign.MemorySegment;

/** A range of another CPU buffer; it lives as long as that buffer and is not closed on its own. */
final class CpuBufferView implements CpuMemory {
  private final CpuMemory parent;
  private final MemorySegment range;

  CpuBufferView(CpuMemory parent, MemorySegment range) {
    this.parent = parent;
    this.range = range;
  }

  @Override
  public MemorySegment segment() {
    parent.segment(); // throws once the parent is closed
    return range;
  }

  @Override
  public long byteSize() {
    return range.byteSize();
  }

  /** Views own nothing: closing one leaves the parent's memory alone. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "view of " + range.byteSize() + " B of " + parent;
  }
}
