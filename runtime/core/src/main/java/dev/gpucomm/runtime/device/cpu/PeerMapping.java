package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.IpcHandle;
import java.lang.foreign.Arena;
import java.util.function.Consumer;

/**
 * One peer allocation mapped into this process, shared by every buffer opened from a handle into it
 * and unmapped when the last of them closes (or when the device closes).
 */
final class PeerMapping implements AutoCloseable {
  private final String allocationKey;
  private final Arena arena;
  private final SharedMemoryFiles.MappedFile file;
  private final Consumer<PeerMapping> onUnmap;
  private int references;
  private volatile boolean unmapped;

  PeerMapping(String allocationKey, byte[] handleBytes, Consumer<PeerMapping> onUnmap) {
    this.allocationKey = allocationKey;
    this.arena = Arena.ofShared();
    try {
      this.file = SharedMemoryFiles.open(handleBytes, arena);
    } catch (RuntimeException e) {
      arena.close();
      throw e;
    }
    this.onUnmap = onUnmap;
  }

  String allocationKey() {
    return allocationKey;
  }

  /** A new reference to the range a handle names, checked against the mapped size. */
  synchronized CpuPeerBuffer open(IpcHandle handle) {
    if (unmapped) {
      throw new IllegalStateException(this + " is unmapped");
    }
    long size = file.memory().byteSize();
    if (handle.offset() > size - handle.byteSize()) {
      throw new IllegalArgumentException(
          handle + " reaches past the end of the peer's allocation of " + size + " bytes");
    }
    references++;
    return new CpuPeerBuffer(this, file.memory().asSlice(handle.offset(), handle.byteSize()));
  }

  boolean isMapped() {
    return !unmapped;
  }

  /** Drops one reference; the last one unmaps. */
  void release() {
    boolean last;
    synchronized (this) {
      last = !unmapped && --references == 0;
    }
    if (last) {
      close();
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (unmapped) {
        return;
      }
      unmapped = true;
    }
    try {
      arena.close();
    } finally {
      onUnmap.accept(this);
    }
  }

  @Override
  public String toString() {
    return "mapping of peer file " + file.path();
  }
}
