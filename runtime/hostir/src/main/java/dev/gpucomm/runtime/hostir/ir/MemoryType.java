package dev.gpucomm.runtime.hostir.ir;

/** Where a tensor's memory comes from: its own allocation, or a view into another tensor. */
public enum MemoryType {
  /** Allocated device memory (an input or an {@link Allocate}): nvFuser's {@code _g}. */
  GLOBAL("g"),
  /** A view that aliases another tensor's memory ({@link ShardByStream}): nvFuser's {@code _l}. */
  LOCAL("l");

  private final String printed;

  MemoryType(String printed) {
    this.printed = printed;
  }

  public String printed() {
    return printed;
  }
}
