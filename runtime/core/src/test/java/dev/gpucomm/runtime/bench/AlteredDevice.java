package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A rank's device that differs from the one it wraps in one respect: less memory (allocations above
 * a limit fail, as when full) or another compute capability (a GPU of another generation).
 */
final class AlteredDevice implements Device {
  private final Device real;
  private final long maxAllocationBytes;
  private final Optional<ComputeCapability> computeCapability;

  private AlteredDevice(
      Device real, long maxAllocationBytes, Optional<ComputeCapability> computeCapability) {
    this.real = real;
    this.maxAllocationBytes = maxAllocationBytes;
    this.computeCapability = computeCapability;
  }

  static AlteredDevice withMemoryLimit(Device real, long maxAllocationBytes) {
    return new AlteredDevice(real, maxAllocationBytes, real.computeCapability());
  }

  static AlteredDevice withComputeCapability(Device real, ComputeCapability computeCapability) {
    return new AlteredDevice(real, Long.MAX_VALUE, Optional.of(computeCapability));
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    if (bytes > maxAllocationBytes) {
      throw new IllegalStateException("out of memory: " + bytes + " bytes requested");
    }
    return real.allocate(bytes);
  }

  @Override
  public DeviceKind kind() {
    return real.kind();
  }

  @Override
  public int ordinal() {
    return real.ordinal();
  }

  @Override
  public String name() {
    return real.name();
  }

  @Override
  public Optional<ComputeCapability> computeCapability() {
    return computeCapability;
  }

  @Override
  public int multiprocessors() {
    return real.multiprocessors();
  }

  @Override
  public ShareableBuffer allocateShareable(long bytes) {
    return real.allocateShareable(bytes);
  }

  @Override
  public DeviceBuffer openPeer(IpcHandle handle) {
    return real.openPeer(handle);
  }

  @Override
  public Stream defaultStream() {
    return real.defaultStream();
  }

  @Override
  public Stream createStream() {
    return real.createStream();
  }

  @Override
  public Event createEvent() {
    return real.createEvent();
  }

  @Override
  public void copy(
      DeviceBuffer dst,
      long dstOffset,
      DeviceBuffer src,
      long srcOffset,
      long bytes,
      Stream stream) {
    real.copy(dst, dstOffset, src, srcOffset, bytes, stream);
  }

  @Override
  public void upload(MemorySegment host, DeviceBuffer dst, long dstOffset) {
    real.upload(host, dst, dstOffset);
  }

  @Override
  public void download(DeviceBuffer src, long srcOffset, MemorySegment host, Stream stream) {
    real.download(src, srcOffset, host, stream);
  }

  @Override
  public void fill(DeviceBuffer dst, long dstOffset, long bytes, byte value, Stream stream) {
    real.fill(dst, dstOffset, bytes, value, stream);
  }

  @Override
  public Graph capture(Stream stream, Runnable body) {
    return real.capture(stream, body);
  }

  @Override
  public Matmul matmul() {
    return real.matmul();
  }

  @Override
  public void close() {
    real.close();
  }
}
