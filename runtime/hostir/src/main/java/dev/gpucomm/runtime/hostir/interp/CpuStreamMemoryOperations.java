package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.device.cpu.CpuMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Stream memory operations on the CPU backend: kernels on the stream's worker thread that store a
 * 32-bit word with release semantics, or poll one with acquire semantics until it holds a value
 * (spinning briefly, then yielding, then parking, so that ranks sharing few cores leave the CPU to
 * the rank being waited for). A wait that outlasts the backend's wait timeout fails the stream.
 */
final class CpuStreamMemoryOperations implements StreamMemoryOperations {
  private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();
  private static final int SPINS = 64;
  private static final int YIELDS = 16;
  private static final long PARK_NANOS = 20_000;

  private final CpuDevice device;
  private final Duration timeout;

  CpuStreamMemoryOperations(CpuDevice device) {
    this.device = device;
    this.timeout = device.config().waitTimeout();
  }

  @Override
  public void writeValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream) {
    MemorySegment word = word(buffer, byteOffset);
    device.streamOf(stream).launch("write value " + value, () -> WORD.setRelease(word, 0L, value));
  }

  @Override
  public void waitValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream) {
    MemorySegment word = word(buffer, byteOffset);
    device
        .streamOf(stream)
        .launch(
            "wait for value " + value,
            () -> {
              if (!await(word, value)) {
                throw new IllegalStateException(
                    "a 32-bit flag did not reach "
                        + value
                        + " within "
                        + timeout.toSeconds()
                        + " s (it holds "
                        + (int) WORD.getAcquire(word, 0L)
                        + "): a peer stopped");
              }
            });
  }

  private boolean await(MemorySegment word, int value) {
    for (int spin = 0; spin < SPINS; spin++) {
      if ((int) WORD.getAcquire(word, 0L) == value) {
        return true;
      }
      Thread.onSpinWait();
    }
    for (int yield = 0; yield < YIELDS; yield++) {
      if ((int) WORD.getAcquire(word, 0L) == value) {
        return true;
      }
      Thread.yield();
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while ((int) WORD.getAcquire(word, 0L) != value) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(PARK_NANOS);
    }
    return true;
  }

  private static MemorySegment word(DeviceBuffer buffer, long byteOffset) {
    MemorySegment segment = CpuMemory.segmentOf(buffer);
    if (byteOffset < 0 || byteOffset % 4 != 0 || byteOffset > segment.byteSize() - 4) {
      throw new IndexOutOfBoundsException(
          "no aligned 32-bit word at offset "
              + byteOffset
              + " of "
              + segment.byteSize()
              + " bytes");
    }
    return segment.asSlice(byteOffset, 4);
  }
}
