package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Memory other ranks of the node can map: a shared-memory file mapped into this process, whose
 * handle carries the file's path. Closing it unmaps the file and deletes it.
 */
public final class CpuSharedBuffer implements CpuMemory, ShareableBuffer {
  private final Path path;
  private final ArenaMemory memory;
  private final IpcHandle handle;
  private final Runnable onClose;

  CpuSharedBuffer(SharedMemoryFiles files, long bytes, Runnable onClose) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("a shareable buffer needs at least 1 byte, got " + bytes);
    }
    Arena arena = Arena.ofShared();
    try {
      SharedMemoryFiles.MappedFile file = files.create(bytes, arena);
      this.path = file.path();
      this.memory = new ArenaMemory(arena, file.memory());
    } catch (RuntimeException e) {
      arena.close();
      throw e;
    }
    this.handle = new IpcHandle(SharedMemoryFiles.handleBytesOf(path), 0, bytes);
    this.onClose = onClose;
  }

  @Override
  public IpcHandle handle() {
    return handle;
  }

  /** The shared-memory file behind this buffer. */
  public Path path() {
    return path;
  }

  /**
   * Removes the file's name once every peer has mapped it: the memory stays shared through the
   * existing mappings, and nothing is left behind under /dev/shm should the process be killed.
   * Peers can no longer open the handle afterwards.
   */
  public void unlink() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the shared-memory file " + path, e);
    }
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
      try {
        memory.free();
        unlink();
      } finally {
        onClose.run();
      }
    }
  }

  @Override
  public String toString() {
    return "cpu shareable buffer of " + memory.byteSize() + " B at " + path;
  }
}
