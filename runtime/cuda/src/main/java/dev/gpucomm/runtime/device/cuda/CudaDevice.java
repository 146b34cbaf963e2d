package dev.gpucomm.runtime.device.cuda;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Event;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.OwnedResources;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUgraph;
import jcuda.driver.CUresult;
import jcuda.driver.CUuuid;
import jcuda.driver.JCudaDriver;

/**
 * One NVIDIA GPU owned by one rank process, in its primary context: JCuda's driver API for setup
 * (memory, streams, events, graphs, modules) and the FFM binding for the per-call hot path.
 *
 * <p>The primary context is made current on whichever thread uses the device (checked through a
 * thread-local, so the hot path pays one lookup). Closing the device closes everything it created,
 * newest first, then releases the primary context.
 *
 * <p>Stream memory operations (cuStreamWriteValue32 / cuStreamWaitValue32) work on local and
 * peer-mapped memory alike; point-to-point protocols over IPC use them as semaphores, so that their
 * transfers run on the copy engines and leave the SMs to kernels on other streams.
 */
public final class CudaDevice implements Device, StreamMemoryOperations {
  private static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
  private static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
  private static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
  private static final int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
  private static final ThreadLocal<CudaDevice> CURRENT = new ThreadLocal<>();

  private final CudaDriverApi api;
  private final int ordinal;
  private final CUdevice cuDevice;
  private final CUcontext context;
  private final String name;
  private final ComputeCapability computeCapability;
  private final int multiprocessors;
  private final int greatestPriority;
  private final NativeHandle state;
  private final OwnedResources owned = new OwnedResources();
  private final Map<String, PeerMapping> peerMappings = new HashMap<>();
  private final Map<String, CudaModule> modules = new HashMap<>();
  private final CudaStream defaultStream;
  private CublasMatmul matmul;

  private CudaDevice(CudaDriverApi api, int ordinal) {
    this.api = api;
    this.ordinal = ordinal;
    this.state = new NativeHandle("cuda device " + ordinal);
    this.cuDevice = new CUdevice();
    check(JCudaDriver.cuDeviceGet(cuDevice, ordinal), "cuDeviceGet");
    this.context = new CUcontext();
    check(JCudaDriver.cuDevicePrimaryCtxRetain(context, cuDevice), "cuDevicePrimaryCtxRetain");
    bind();
    this.name = nameOf(api, cuDevice, ordinal);
    this.computeCapability =
        new ComputeCapability(
            attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    this.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    int[] least = new int[1];
    int[] greatest = new int[1];
    check(JCudaDriver.cuCtxGetStreamPriorityRange(least, greatest), "cuCtxGetStreamPriorityRange");
    this.greatestPriority = greatest[0];
    this.defaultStream = owned.add(new CudaStream(this));
  }

  /** Opens GPU {@code ordinal} (as numbered after CUDA_VISIBLE_DEVICES). */
  public static CudaDevice open(CudaDriverApi api, int ordinal) {
    JCudaNatives.load();
    check(api, JCudaDriver.cuInit(0), "cuInit", ordinal);
    return new CudaDevice(api, ordinal);
  }

  /**
   * The name device {@code ordinal} reports ("NVIDIA H200"), read without opening it: no context is
   * made, so a launcher can ask before its ranks start.
   */
  public static String nameOf(CudaDriverApi api, int ordinal) {
    JCudaNatives.load();
    check(api, JCudaDriver.cuInit(0), "cuInit", ordinal);
    CUdevice device = new CUdevice();
    check(api, JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", ordinal);
    return nameOf(api, device, ordinal);
  }

  private static String nameOf(CudaDriverApi api, CUdevice device, int ordinal) {
    byte[] nameBytes = new byte[256];
    check(
        api,
        JCudaDriver.cuDeviceGetName(nameBytes, nameBytes.length, device),
        "cuDeviceGetName",
        ordinal);
    int length = 0;
    while (length < nameBytes.length && nameBytes[length] != 0) {
      length++;
    }
    return new String(nameBytes, 0, length, StandardCharsets.UTF_8);
  }

  /** Makes this device's primary context current on the calling thread (cheap when it is). */
  public void bind() {
    if (CURRENT.get() != this) {
      state.checkOpen();
      check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      CURRENT.set(this);
    }
  }

  CudaDriverApi api() {
    return api;
  }

  /** Throws a {@link CudaException} naming this device for a non-zero CUresult. */
  void check(int result, String call) {
    check(api, result, call, ordinal);
  }

  private static void check(CudaDriverApi api, int result, String call, int device) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new CudaException(call, CUresult.stringFor(result), device);
    }
  }

  @Override
  public Optional<String> uuid() {
    CUuuid uuid = new CUuuid();
    check(JCudaDriver.cuDeviceGetUuid(uuid, cuDevice), "cuDeviceGetUuid");
    return Optional.of(GpuUuid.format(uuid.bytes));
  }

  @Override
  public Optional<String> pciBusId() {
    String[] busId = new String[1];
    check(JCudaDriver.cuDeviceGetPCIBusId(busId, 32, cuDevice), "cuDeviceGetPCIBusId");
    return Optional.ofNullable(busId[0]).map(String::trim);
  }

  private int attribute(int attribute) {
    int[] value = new int[1];
    check(JCudaDriver.cuDeviceGetAttribute(value, attribute, cuDevice), "cuDeviceGetAttribute");
    return value[0];
  }

  public static <T> T cast(Object object, Class<T> type) {
    if (!type.isInstance(object)) {
      throw new IllegalArgumentException(
          "expected a " + type.getSimpleName() + " of the cuda backend, got " + object);
    }
    return type.cast(object);
  }

  /** Called by a child that was closed on its own. */
  void forget(AutoCloseable child) {
    owned.remove(child);
  }

  @Override
  public DeviceKind kind() {
    return DeviceKind.CUDA;
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
    return Optional.of(computeCapability);
  }

  /** Streaming multiprocessors on this GPU. */
  @Override
  public int multiprocessors() {
    return multiprocessors;
  }

  /**
   * The most urgent stream or launch priority of this GPU (CUDA numbers priorities downwards: this
   * is the lowest number; 0 is the default).
   */
  public int greatestPriority() {
    return greatestPriority;
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    return allocateShareable(bytes);
  }

  @Override
  public OptionalLong freeMemoryBytes() {
    state.checkOpen();
    bind();
    long[] free = new long[1];
    long[] total = new long[1];
    check(JCudaDriver.cuMemGetInfo(free, total), "cuMemGetInfo");
    return OptionalLong.of(free[0]);
  }

  @Override
  public ShareableBuffer allocateShareable(long bytes) {
    state.checkOpen();
    if (bytes <= 0) {
      throw new IllegalArgumentException("allocation size must be positive, got " + bytes);
    }
    bind();
    JCudaHandles.DevicePointer pointer = new JCudaHandles.DevicePointer();
    check(JCudaDriver.cuMemAlloc(pointer, bytes), "cuMemAlloc(" + bytes + " B)");
    return owned.add(new CudaBuffer(this, pointer, bytes));
  }

  @Override
  public synchronized DeviceBuffer openPeer(IpcHandle handle) {
    state.checkOpen();
    String key = handle.allocationKey();
    PeerMapping mapping = peerMappings.get(key);
    if (mapping == null) {
      bind();
      long base = api.ipcOpen(handle.handleBytes(), ordinal);
      mapping = owned.add(new PeerMapping(this, base, key));
      peerMappings.put(key, mapping);
    }
    return new CudaBufferView(mapping.state(), mapping.base() + handle.offset(), handle.byteSize());
  }

  /** Unmaps a peer allocation opened with {@link #openPeer}; its views become unusable. */
  public synchronized void releasePeer(IpcHandle handle) {
    PeerMapping mapping = peerMappings.remove(handle.allocationKey());
    if (mapping != null) {
      mapping.close();
      owned.remove(mapping);
    }
  }

  /** The base address and size of the allocation containing {@code address}. */
  public long[] allocationRange(long address) {
    bind();
    return api.addressRange(address, ordinal);
  }

  @Override
  public Stream defaultStream() {
    state.checkOpen();
    return defaultStream;
  }

  @Override
  public Stream createStream() {
    state.checkOpen();
    return owned.add(new CudaStream(this));
  }

  @Override
  public Event createEvent() {
    state.checkOpen();
    return owned.add(new CudaEvent(this));
  }

  /** An event that only orders streams (no timing, which makes recording and waiting cheaper). */
  public Event createOrderingEvent() {
    state.checkOpen();
    return owned.add(new CudaEvent(this, false));
  }

  /** The raw CUstream of a stream of this backend, for libraries such as NCCL. */
  public static MemorySegment rawStream(Stream stream) {
    return cast(stream, CudaStream.class).segment();
  }

  @Override
  public void copy(
      DeviceBuffer dst,
      long dstOffset,
      DeviceBuffer src,
      long srcOffset,
      long bytes,
      Stream stream) {
    CudaBufferView.checkSlice(dstOffset, bytes, dst.byteSize());
    CudaBufferView.checkSlice(srcOffset, bytes, src.byteSize());
    bind();
    int result =
        api.copyAsync(
            dst.address() + dstOffset,
            src.address() + srcOffset,
            bytes,
            cast(stream, CudaStream.class).segment());
    if (result != 0) {
      check(result, "cuMemcpyAsync");
    }
  }

  /**
   * Copies between raw device addresses (peer mappings included) on {@code stream} with the copy
   * engines; the caller has checked that both ranges lie inside their allocations.
   */
  public void copyAddresses(long dst, long src, long bytes, Stream stream) {
    bind();
    int result = api.copyAsync(dst, src, bytes, cast(stream, CudaStream.class).segment());
    if (result != 0) {
      check(result, "cuMemcpyAsync");
    }
  }

  @Override
  public void upload(MemorySegment host, DeviceBuffer dst, long dstOffset) {
    long bytes = host.byteSize();
    CudaBufferView.checkSlice(dstOffset, bytes, dst.byteSize());
    bind();
    if (host.isNative()) {
      check(api.copyHostToDevice(dst.address() + dstOffset, host, bytes), "cuMemcpyHtoD");
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment staging = arena.allocate(bytes, 16);
      staging.copyFrom(host);
      check(api.copyHostToDevice(dst.address() + dstOffset, staging, bytes), "cuMemcpyHtoD");
    }
  }

  @Override
  public void download(DeviceBuffer src, long srcOffset, MemorySegment host, Stream stream) {
    long bytes = host.byteSize();
    CudaBufferView.checkSlice(srcOffset, bytes, src.byteSize());
    stream.synchronize();
    bind();
    if (host.isNative()) {
      check(api.copyDeviceToHost(host, src.address() + srcOffset, bytes), "cuMemcpyDtoH");
      return;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment staging = arena.allocate(bytes, 16);
      check(api.copyDeviceToHost(staging, src.address() + srcOffset, bytes), "cuMemcpyDtoH");
      host.copyFrom(staging);
    }
  }

  @Override
  public void fill(DeviceBuffer dst, long dstOffset, long bytes, byte value, Stream stream) {
    CudaBufferView.checkSlice(dstOffset, bytes, dst.byteSize());
    bind();
    check(
        api.fillBytesAsync(
            dst.address() + dstOffset, value, bytes, cast(stream, CudaStream.class).segment()),
        "cuMemsetD8Async");
  }

  /** Fills {@code words} 32-bit words with {@code value}, in stream order. */
  public void fillWords(DeviceBuffer dst, long dstOffset, long words, int value, Stream stream) {
    CudaBufferView.checkSlice(dstOffset, 4 * words, dst.byteSize());
    bind();
    check(
        api.fillWordsAsync(
            dst.address() + dstOffset, value, words, cast(stream, CudaStream.class).segment()),
        "cuMemsetD32Async");
  }

  @Override
  public void writeValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream) {
    checkWord(buffer, byteOffset);
    bind();
    check(
        api.streamWriteValue32(
            cast(stream, CudaStream.class).segment(), buffer.address() + byteOffset, value),
        "cuStreamWriteValue32");
  }

  @Override
  public void waitValue32(DeviceBuffer buffer, long byteOffset, int value, Stream stream) {
    checkWord(buffer, byteOffset);
    bind();
    check(
        api.streamWaitValue32Equal(
            cast(stream, CudaStream.class).segment(), buffer.address() + byteOffset, value),
        "cuStreamWaitValue32");
  }

  private static void checkWord(DeviceBuffer buffer, long byteOffset) {
    if (byteOffset % 4 != 0) {
      throw new IllegalArgumentException(
          "a 32-bit stream memory operation needs a 4-byte aligned offset, got " + byteOffset);
    }
    CudaBufferView.checkSlice(byteOffset, 4, buffer.byteSize());
  }

  @Override
  public Graph capture(Stream stream, Runnable body) {
    state.checkOpen();
    bind();
    CudaStream cudaStream = cast(stream, CudaStream.class);
    check(
        JCudaDriver.cuStreamBeginCapture(cudaStream.jcuda(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
    CUgraph graph = new CUgraph();
    try {
      body.run();
    } catch (RuntimeException | Error e) {
      // End the capture so the stream is usable again; the partial graph is discarded.
      if (JCudaDriver.cuStreamEndCapture(cudaStream.jcuda(), graph) == CUresult.CUDA_SUCCESS) {
        JCudaDriver.cuGraphDestroy(graph);
      }
      throw e;
    }
    check(JCudaDriver.cuStreamEndCapture(cudaStream.jcuda(), graph), "cuStreamEndCapture");
    JCudaHandles.GraphExec exec = new JCudaHandles.GraphExec();
    int instantiated = JCudaDriver.cuGraphInstantiate(exec, graph, 0);
    if (instantiated != CUresult.CUDA_SUCCESS) {
      JCudaDriver.cuGraphDestroy(graph);
      check(instantiated, "cuGraphInstantiate");
    }
    return owned.add(new CudaGraph(this, graph, exec));
  }

  /** True while {@code stream} is being captured into a graph. */
  public boolean isCapturing(Stream stream) {
    bind();
    int[] status = new int[1];
    check(
        JCudaDriver.cuStreamIsCapturing(cast(stream, CudaStream.class).jcuda(), status),
        "cuStreamIsCapturing");
    return status[0] != 0;
  }

  /** The module built from a PTX resource of the runtime jar, loaded once per device. */
  public synchronized CudaModule module(String ptxResource) {
    state.checkOpen();
    CudaModule module = modules.get(ptxResource);
    if (module == null) {
      module =
          owned.add(new CudaModule(this, ptxResource, CudaModule.readPtxResource(ptxResource)));
      modules.put(ptxResource, module);
    }
    return module;
  }

  @Override
  public synchronized Matmul matmul() {
    state.checkOpen();
    if (matmul == null) {
      matmul = owned.add(CublasMatmul.create(this));
    }
    return matmul;
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      // Children unmap and free in this context; bind() must not refuse them now.
      check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      CURRENT.set(this);
      // The context goes last, and even when a child fails to close.
      RuntimeException failure =
          Closing.newestFirst(List.<AutoCloseable>of(this::releaseContext, owned));
      if (failure != null) {
        throw failure;
      }
    }
  }

  private void releaseContext() {
    synchronized (this) {
      peerMappings.clear();
      modules.clear();
    }
    CURRENT.remove();
    check(JCudaDriver.cuDevicePrimaryCtxRelease(cuDevice), "cuDevicePrimaryCtxRelease");
  }

  @Override
  public String toString() {
    return "cuda device " + ordinal + " (" + name + ", cc " + computeCapability + ")";
  }
}
