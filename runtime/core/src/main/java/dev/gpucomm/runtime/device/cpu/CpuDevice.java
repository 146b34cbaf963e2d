package dev.gpucomm.runtime.device.cpu;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.OwnedResources;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The CPU standing in for one rank's GPU: off-heap buffers, shared-memory files for IPC, worker
 * threads for streams, marker kernels for events, recorded kernel lists for graphs.
 *
 * <p>Everything it creates is closed when it closes: first its streams (their queued work finishes
 * first, so no kernel outlives the memory it uses), then everything else, newest first.
 */
public final class CpuDevice implements Device {
  private final CpuBackendConfig config;
  private final int ordinal;
  private final String name;
  private final SharedMemoryFiles sharedMemoryFiles;
  private final OwnedResources streams = new OwnedResources();
  private final OwnedResources resources = new OwnedResources();
  private final Map<String, PeerMapping> peerMappings = new HashMap<>();
  private final AtomicInteger streamCount = new AtomicInteger();
  private final AtomicInteger eventCount = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CpuStream defaultStream;
  private final CpuMatmul matmul = new CpuMatmul(this);

  public CpuDevice(CpuBackendConfig config, int ordinal) {
    if (ordinal < 0) {
      throw new IllegalArgumentException("local rank must be >= 0, got " + ordinal);
    }
    this.config = config;
    this.ordinal = ordinal;
    this.name = "cpu (" + CpuRankBinding.hostProcessors() + " cores)";
    this.sharedMemoryFiles =
        new SharedMemoryFiles(config.sharedMemoryDirectory(), config.jobName(), ordinal);
    this.defaultStream = (CpuStream) createStream();
  }

  /** The CPU device behind {@code device}; rejects devices of other backends. */
  public static CpuDevice of(Device device) {
    if (device instanceof CpuDevice cpu) {
      return cpu;
    }
    throw new IllegalArgumentException(
        "the cpu backend cannot use "
            + (device == null ? "a null device" : device.getClass().getSimpleName()));
  }

  public CpuBackendConfig config() {
    return config;
  }

  @Override
  public DeviceKind kind() {
    return DeviceKind.CPU;
  }

  @Override
  public int ordinal() {
    return ordinal;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<ComputeCapability> computeCapability() {
    return Optional.empty();
  }

  @Override
  public int multiprocessors() {
    return 0;
  }

  @Override
  public CpuBuffer allocate(long bytes) {
    checkOpen();
    CpuBuffer[] created = new CpuBuffer[1];
    created[0] = resources.add(new CpuBuffer(bytes, () -> resources.remove(created[0])));
    return created[0];
  }

  @Override
  public CpuSharedBuffer allocateShareable(long bytes) {
    checkOpen();
    CpuSharedBuffer[] created = new CpuSharedBuffer[1];
    created[0] =
        resources.add(
            new CpuSharedBuffer(sharedMemoryFiles, bytes, () -> resources.remove(created[0])));
    return created[0];
  }

  @Override
  public CpuPeerBuffer openPeer(IpcHandle handle) {
    checkOpen();
    synchronized (peerMappings) {
      String key = handle.allocationKey();
      PeerMapping mapping = peerMappings.get(key);
      if (mapping != null && mapping.isMapped()) {
        return mapping.open(handle);
      }
      PeerMapping created = new PeerMapping(key, handle.handleBytes(), this::forgetMapping);
      peerMappings.put(key, created);
      resources.add(created);
      try {
        return created.open(handle);
      } catch (RuntimeException e) {
        created.close(); // unreferenced: do not keep it mapped
        throw e;
      }
    }
  }

  private void forgetMapping(PeerMapping mapping) {
    synchronized (peerMappings) {
      peerMappings.remove(mapping.allocationKey(), mapping);
    }
    resources.remove(mapping);
  }

  /** How many peer allocations are mapped now (each at most once, however often it is opened). */
  public int peerMappingCount() {
    synchronized (peerMappings) {
      return peerMappings.size();
    }
  }

  @Override
  public CpuStream defaultStream() {
    checkOpen();
    return defaultStream;
  }

  @Override
  public Stream createStream() {
    checkOpen();
    String streamName = "gpucomm-cpu" + ordinal + "-stream" + streamCount.getAndIncrement();
    CpuStream[] created = new CpuStream[1];
    created[0] =
        streams.add(
            new CpuStream(
                this, streamName, config.waitTimeout(), () -> streams.remove(created[0])));
    return created[0];
  }

  @Override
  public Event createEvent() {
    checkOpen();
    String eventName = "cpu" + ordinal + "-event" + eventCount.getAndIncrement();
    CpuEvent[] created = new CpuEvent[1];
    created[0] = resources.add(new CpuEvent(eventName, () -> resources.remove(created[0])));
    return created[0];
  }

  @Override
  public void copy(
      DeviceBuffer dst,
      long dstOffset,
      DeviceBuffer src,
      long srcOffset,
      long bytes,
      Stream stream) {
    MemorySegment to = range("copy destination", dst, dstOffset, bytes);
    MemorySegment from = range("copy source", src, srcOffset, bytes);
    streamOf(stream).launch("copy", () -> MemorySegment.copy(from, 0, to, 0, bytes));
  }

  /**
   * Waits for the work queued on the default stream, then copies on the calling thread, so that
   * host segments confined to that thread work too.
   */
  @Override
  public void upload(MemorySegment host, DeviceBuffer dst, long dstOffset) {
    MemorySegment to = range("upload destination", dst, dstOffset, host.byteSize());
    defaultStream().synchronize();
    MemorySegment.copy(host, 0, to, 0, host.byteSize());
  }

  /** Waits for the work queued on {@code stream}, then copies on the calling thread. */
  @Override
  public void download(DeviceBuffer src, long srcOffset, MemorySegment host, Stream stream) {
    MemorySegment from = range("download source", src, srcOffset, host.byteSize());
    streamOf(stream).synchronize();
    MemorySegment.copy(from, 0, host, 0, host.byteSize());
  }

  @Override
  public void fill(DeviceBuffer dst, long dstOffset, long bytes, byte value, Stream stream) {
    MemorySegment to = range("fill destination", dst, dstOffset, bytes);
    streamOf(stream).launch("fill", () -> to.fill(value));
  }

  @Override
  public CpuGraph capture(Stream stream, Runnable body) {
    CpuStream cpuStream = streamOf(stream);
    cpuStream.beginCapture();
    List<Launch> captured;
    try {
      body.run();
    } finally {
      captured = cpuStream.endCapture();
    }
    CpuGraph[] created = new CpuGraph[1];
    created[0] = resources.add(new CpuGraph(this, captured, () -> resources.remove(created[0])));
    return created[0];
  }

  @Override
  public Matmul matmul() {
    checkOpen();
    return matmul;
  }

  /** A stream of this device; rejects other backends' streams and other devices' streams. */
  public CpuStream streamOf(Stream stream) {
    checkOpen();
    CpuStream cpuStream = CpuStream.of(stream);
    if (cpuStream.device() != this) {
      throw new IllegalArgumentException(
          cpuStream + " belongs to another device than cpu device " + ordinal);
    }
    return cpuStream;
  }

  /** The {@code bytes} bytes of {@code buffer} at {@code offset}, checked against its size. */
  static MemorySegment range(String role, DeviceBuffer buffer, long offset, long bytes) {
    MemorySegment segment = CpuMemory.segmentOf(buffer);
    if (offset < 0 || bytes < 0 || offset > segment.byteSize() - bytes) {
      throw new IndexOutOfBoundsException(
          role
              + ": "
              + bytes
              + " bytes at offset "
              + offset
              + " do not fit a buffer of "
              + segment.byteSize()
              + " bytes");
    }
    return segment.asSlice(offset, bytes);
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Streams first (newest first in this list): their workers may still touch the resources.
    RuntimeException failure = Closing.newestFirst(List.of(resources, streams));
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "cpu device " + ordinal;
  }
}
