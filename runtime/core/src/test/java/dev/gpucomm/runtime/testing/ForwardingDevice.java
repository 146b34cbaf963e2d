package dev.gpucomm.runtime.testing;

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
import java.util.OptionalLong;

/**
 * A device that passes every call to a real one, for tests that change one behaviour of it. Closing
 * it leaves the real device to its owner.
 */
public abstract class ForwardingDevice implements Device {
  protected final Device real;

  protected ForwardingDevice(Device real) {
    this.real = real;
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
  public Optional<String> uuid() {
    return real.uuid();
  }

  @Override
  public Optional<String> pciBusId() {
    return real.pciBusId();
  }

  @Override
  public Optional<ComputeCapability> computeCapability() {
    return real.computeCapability();
  }

  @Override
  public int multiprocessors() {
    return real.multiprocessors();
  }

  @Override
  public OptionalLong freeMemoryBytes() {
    return real.freeMemoryBytes();
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    return real.allocate(bytes);
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
    // The real device belongs to the test.
  }
}
