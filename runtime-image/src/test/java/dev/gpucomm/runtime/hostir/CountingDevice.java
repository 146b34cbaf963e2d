package dev.gpucomm.runtime.hostir;

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
import java.util.concurrent.atomic.AtomicInteger;

/** A device that counts what it creates and passes everything on; closing leaves it open. */
public final class CountingDevice implements Device {
  private final Device delegate;
  public final AtomicInteger allocations = new AtomicInteger();
  public final AtomicInteger streams = new AtomicInteger();
  public final AtomicInteger events = new AtomicInteger();
  public final AtomicInteger matmuls = new AtomicInteger();

  public CountingDevice(Device delegate) {
    this.delegate = delegate;
  }

  @Override
  public DeviceKind kind() {
    return delegate.kind();
  }

  @Override
  public int ordinal() {
    return delegate.ordinal();
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Optional<ComputeCapability> computeCapability() {
    return delegate.computeCapability();
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    allocations.incrementAndGet();
    return delegate.allocate(bytes);
  }

  @Override
  public ShareableBuffer allocateShareable(long bytes) {
    allocations.incrementAndGet();
    return delegate.allocateShareable(bytes);
  }

  @Override
  public DeviceBuffer openPeer(IpcHandle handle) {
    return delegate.openPeer(handle);
  }

  @Override
  public Stream defaultStream() {
    return delegate.defaultStream();
  }

  @Override
  public Stream createStream() {
    streams.incrementAndGet();
    return delegate.createStream();
  }

  @Override
  public Event createEvent() {
    events.incrementAndGet();
    return delegate.createEvent();
  }

  @Override
  public void copy(
      DeviceBuffer dst,
      long dstOffset,
      DeviceBuffer src,
      long srcOffset,
      long bytes,
      Stream stream) {
    delegate.copy(dst, dstOffset, src, srcOffset, bytes, stream);
  }

  @Override
  public void upload(MemorySegment host, DeviceBuffer dst, long dstOffset) {
    delegate.upload(host, dst, dstOffset);
  }

  @Override
  public void download(DeviceBuffer src, long srcOffset, MemorySegment host, Stream stream) {
    delegate.download(src, srcOffset, host, stream);
  }

  @Override
  public void fill(DeviceBuffer dst, long dstOffset, long bytes, byte value, Stream stream) {
    delegate.fill(dst, dstOffset, bytes, value, stream);
  }

  @Override
  public Graph capture(Stream stream, Runnable body) {
    return delegate.capture(stream, body);
  }

  @Override
  public Matmul matmul() {
    Matmul matmul = delegate.matmul();
    return (a, b, c, m, n, k, dtype, accumulate, stream) -> {
      matmuls.incrementAndGet();
      matmul.multiply(a, b, c, m, n, k, dtype, accumulate, stream);
    };
  }

  @Override
  public void close() {
    // The wrapped device belongs to the test.
  }
}
