package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The CUDA driver functions gpucomm calls through the FFM API on {@code libcuda.so.1}: the per-call
 * hot path (kernel launch, async copies, event record, graph launch), CUDA IPC (whose 64 handle
 * bytes JCuda does not expose) and the probe that counts devices without loading JCuda.
 *
 * <p>Hot-path functions are bound with {@link Linker.Option#critical(boolean)}: they neither block
 * for long nor call back into Java, and skipping the thread-state transition halves their host
 * cost.
 */
public final class CudaDriverApi {
  /** Size of a {@code CUipcMemHandle}. */
  public static final int IPC_HANDLE_BYTES = 64;

  static final MemoryLayout IPC_HANDLE =
      MemoryLayout.structLayout(MemoryLayout.sequenceLayout(IPC_HANDLE_BYTES, JAVA_BYTE))
          .withName("CUipcMemHandle");

  /** Every function this binding calls, by its exported symbol, with the C signature used. */
  static final Map<String, FunctionDescriptor> FUNCTIONS;

  /** The functions bound as critical (hot path). */
  static final Set<String> CRITICAL =
      Set.of(
          "cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyAsync", "cuEventRecord", "cuGraphLaunch");

  static {
    Map<String, FunctionDescriptor> f = new LinkedHashMap<>();
    f.put("cuInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    f.put("cuDriverGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("cuDeviceGetCount", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    f.put(
        "cuLaunchKernel",
        FunctionDescriptor.of(
            JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            ADDRESS, ADDRESS, ADDRESS));
    f.put("cuLaunchKernelEx", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    f.put(
        "cuMemcpyAsync", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
    f.put(
        "cuStreamWriteValue32_v2",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
    f.put(
        "cuStreamWaitValue32_v2",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
    f.put(
        "cuMemsetD8Async",
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, ADDRESS));
    f.put(
        "cuMemsetD32Async",
        FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS));
    f.put("cuMemcpyHtoD_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG));
    f.put("cuMemcpyDtoH_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    f.put("cuEventRecord", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    f.put("cuGraphLaunch", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    f.put("cuIpcGetMemHandle", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    f.put("cuIpcOpenMemHandle_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, IPC_HANDLE, JAVA_INT));
    f.put("cuIpcCloseMemHandle", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    f.put("cuMemGetAddressRange_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    f.put("cuMemHostRegister_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    f.put("cuMemHostUnregister", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    FUNCTIONS = Collections.unmodifiableMap(f);
  }

  private static final int CUDA_SUCCESS = 0;
  private static final int WAIT_VALUE_EQ = 0x1;
  private static final int MEMHOSTREGISTER_PORTABLE = 0x1;
  private static final int MEMHOSTREGISTER_DEVICEMAP = 0x2;

  private static final LoadedOnce<CudaDriverApi> BINDING = new LoadedOnce<>(CudaDriverApi::tryLoad);

  private final String source;
  private final MethodHandle cuInit;
  private final MethodHandle cuDriverGetVersion;
  private final MethodHandle cuDeviceGetCount;
  private final MethodHandle cuGetErrorName;
  private final MethodHandle cuLaunchKernel;
  private final MethodHandle cuLaunchKernelEx;
  private final MethodHandle cuMemcpyAsync;
  private final MethodHandle cuStreamWriteValue32;
  private final MethodHandle cuStreamWaitValue32;
  private final MethodHandle cuMemsetD8Async;
  private final MethodHandle cuMemsetD32Async;
  private final MethodHandle cuMemcpyHtoD;
  private final MethodHandle cuMemcpyDtoH;
  private final MethodHandle cuEventRecord;
  private final MethodHandle cuGraphLaunch;
  private final MethodHandle cuIpcGetMemHandle;
  private final MethodHandle cuIpcOpenMemHandle;
  private final MethodHandle cuIpcCloseMemHandle;
  private final MethodHandle cuMemGetAddressRange;
  private final MethodHandle cuMemHostRegister;
  private final MethodHandle cuMemHostUnregister;

  private CudaDriverApi(SymbolLookup lookup, String source) {
    this.source = source;
    Linker linker = Linker.nativeLinker();
    Map<String, MethodHandle> handles = new LinkedHashMap<>();
    for (Map.Entry<String, FunctionDescriptor> entry : FUNCTIONS.entrySet()) {
      MemorySegment symbol =
          lookup
              .find(entry.getKey())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          source + " has no symbol " + entry.getKey() + " (driver too old?)"));
      Linker.Option[] options =
          CRITICAL.contains(entry.getKey())
              ? new Linker.Option[] {Linker.Option.critical(false)}
              : new Linker.Option[0];
      handles.put(entry.getKey(), linker.downcallHandle(symbol, entry.getValue(), options));
    }
    cuInit = handles.get("cuInit");
    cuDriverGetVersion = handles.get("cuDriverGetVersion");
    cuDeviceGetCount = handles.get("cuDeviceGetCount");
    cuGetErrorName = handles.get("cuGetErrorName");
    cuLaunchKernel = handles.get("cuLaunchKernel");
    cuLaunchKernelEx = handles.get("cuLaunchKernelEx");
    cuMemcpyAsync = handles.get("cuMemcpyAsync");
    cuStreamWriteValue32 = handles.get("cuStreamWriteValue32_v2");
    cuStreamWaitValue32 = handles.get("cuStreamWaitValue32_v2");
    cuMemsetD8Async = handles.get("cuMemsetD8Async");
    cuMemsetD32Async = handles.get("cuMemsetD32Async");
    cuMemcpyHtoD = handles.get("cuMemcpyHtoD_v2");
    cuMemcpyDtoH = handles.get("cuMemcpyDtoH_v2");
    cuEventRecord = handles.get("cuEventRecord");
    cuGraphLaunch = handles.get("cuGraphLaunch");
    cuIpcGetMemHandle = handles.get("cuIpcGetMemHandle");
    cuIpcOpenMemHandle = handles.get("cuIpcOpenMemHandle_v2");
    cuIpcCloseMemHandle = handles.get("cuIpcCloseMemHandle");
    cuMemGetAddressRange = handles.get("cuMemGetAddressRange_v2");
    cuMemHostRegister = handles.get("cuMemHostRegister_v2");
    cuMemHostUnregister = handles.get("cuMemHostUnregister");
  }

  /**
   * The driver binding, loaded once per process.
   *
   * @throws IllegalStateException naming why when libcuda.so.1 cannot be loaded or lacks a symbol
   */
  public static CudaDriverApi get() {
    return BINDING.get();
  }

  private static CudaDriverApi tryLoad() {
    List<String> failures = new ArrayList<>();
    var library =
        NativeLibraries.load(
            "GPUCOMM_CUDA_DRIVER",
            List.of("libcuda.so.1"),
            List.of(
                Path.of("/usr/lib/x86_64-linux-gnu"),
                Path.of("/usr/local/nvidia/lib64"),
                Path.of("/usr/lib64")),
            failures);
    if (library.isEmpty()) {
      throw new IllegalStateException(
          "the NVIDIA driver library libcuda.so.1 was not found (no NVIDIA driver on this host)");
    }
    return new CudaDriverApi(library.get().lookup(), library.get().source());
  }

  /** Where the driver library was loaded from. */
  public String source() {
    return source;
  }

  /** cuInit(0); returns the CUresult so that the probe can report it without throwing. */
  public int init() {
    try {
      return (int) cuInit.invokeExact(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The CUDA version the driver supports, e.g. 13000. */
  public int driverVersion() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      check((int) cuDriverGetVersion.invokeExact(out), "cuDriverGetVersion", -1);
      return out.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The number of devices, or the CUresult as a negative number when the call failed. */
  public int deviceCountOrError() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(JAVA_INT);
      int result = (int) cuDeviceGetCount.invokeExact(out);
      return result == CUDA_SUCCESS ? out.get(JAVA_INT, 0) : -result;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The CUDA name of an error code, e.g. CUDA_ERROR_INVALID_VALUE. */
  public String errorName(int result) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      int status = (int) cuGetErrorName.invokeExact(result, out);
      MemorySegment name = out.get(ADDRESS, 0);
      if (status != CUDA_SUCCESS || name.equals(MemorySegment.NULL)) {
        return "CUDA error " + result;
      }
      return name.reinterpret(256).getString(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Throws a {@link CudaException} for a non-zero CUresult. */
  public void check(int result, String call, int device) {
    if (result != CUDA_SUCCESS) {
      throw new CudaException(call, errorName(result), device);
    }
  }

  /** cuLaunchKernel with a prepared {@code void**} parameter array; returns the CUresult. */
  public int launchKernel(
      MemorySegment function,
      int gridX,
      int blockX,
      int sharedBytes,
      MemorySegment stream,
      MemorySegment parameters) {
    try {
      return (int)
          cuLaunchKernel.invokeExact(
              function,
              gridX,
              1,
              1,
              blockX,
              1,
              1,
              sharedBytes,
              stream,
              parameters,
              MemorySegment.NULL);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * cuLaunchKernelEx with a prepared {@code CUlaunchConfig} (grid, block, stream and attributes
   * already written into it, see {@link LaunchConfig}); returns the CUresult.
   */
  public int launchKernelEx(
      MemorySegment config, MemorySegment function, MemorySegment parameters) {
    try {
      return (int) cuLaunchKernelEx.invokeExact(config, function, parameters, MemorySegment.NULL);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** cuStreamWriteValue32 (flags 0: a memory barrier orders earlier work first). */
  public int streamWriteValue32(MemorySegment stream, long address, int value) {
    try {
      return (int) cuStreamWriteValue32.invokeExact(stream, address, value, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** cuStreamWaitValue32 with CU_STREAM_WAIT_VALUE_EQ. */
  public int streamWaitValue32Equal(MemorySegment stream, long address, int value) {
    try {
      return (int) cuStreamWaitValue32.invokeExact(stream, address, value, WAIT_VALUE_EQ);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** cuMemcpyAsync between device (or peer-mapped) addresses; returns the CUresult. */
  public int copyAsync(long dst, long src, long bytes, MemorySegment stream) {
    try {
      return (int) cuMemcpyAsync.invokeExact(dst, src, bytes, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int fillBytesAsync(long dst, byte value, long bytes, MemorySegment stream) {
    try {
      return (int) cuMemsetD8Async.invokeExact(dst, value, bytes, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int fillWordsAsync(long dst, int value, long words, MemorySegment stream) {
    try {
      return (int) cuMemsetD32Async.invokeExact(dst, value, words, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Synchronous host-to-device copy from a native segment. */
  public int copyHostToDevice(long dst, MemorySegment host, long bytes) {
    try {
      return (int) cuMemcpyHtoD.invokeExact(dst, host, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Synchronous device-to-host copy into a native segment. */
  public int copyDeviceToHost(MemorySegment host, long src, long bytes) {
    try {
      return (int) cuMemcpyDtoH.invokeExact(host, src, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int recordEvent(MemorySegment event, MemorySegment stream) {
    try {
      return (int) cuEventRecord.invokeExact(event, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int launchGraph(MemorySegment graphExec, MemorySegment stream) {
    try {
      return (int) cuGraphLaunch.invokeExact(graphExec, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The 64 bytes of the IPC handle of the allocation that starts at {@code base}. */
  public byte[] ipcHandle(long base, int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment handle = arena.allocate(IPC_HANDLE);
      check((int) cuIpcGetMemHandle.invokeExact(handle, base), "cuIpcGetMemHandle", device);
      return handle.toArray(JAVA_BYTE);
    } catch (CudaException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Maps a peer's allocation with lazy peer access; returns the local address of its base. */
  public long ipcOpen(byte[] handleBytes, int device) {
    if (handleBytes.length != IPC_HANDLE_BYTES) {
      throw new IllegalArgumentException(
          "a CUDA IPC handle has " + IPC_HANDLE_BYTES + " bytes, got " + handleBytes.length);
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment handle = arena.allocate(IPC_HANDLE);
      handle.copyFrom(MemorySegment.ofArray(handleBytes));
      MemorySegment out = arena.allocate(JAVA_LONG);
      int lazyEnablePeerAccess = 1;
      check(
          (int) cuIpcOpenMemHandle.invokeExact(out, handle, lazyEnablePeerAccess),
          "cuIpcOpenMemHandle",
          device);
      return out.get(JAVA_LONG, 0);
    } catch (CudaException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public int ipcClose(long mappedBase) {
    try {
      return (int) cuIpcCloseMemHandle.invokeExact(mappedBase);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Page-locks {@code bytes} of host memory at {@code address} (page-aligned) for every CUDA
   * context of the process (CU_MEMHOSTREGISTER_PORTABLE), so that async copies use it directly, and
   * maps it for the device (CU_MEMHOSTREGISTER_DEVICEMAP; with unified addressing the host address
   * is the device address), so that streams can write and wait for words in it.
   */
  public void registerHost(long address, long bytes, int device) {
    try {
      check(
          (int)
              cuMemHostRegister.invokeExact(
                  MemorySegment.ofAddress(address),
                  bytes,
                  MEMHOSTREGISTER_PORTABLE | MEMHOSTREGISTER_DEVICEMAP),
          "cuMemHostRegister",
          device);
    } catch (CudaException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Undoes {@link #registerHost}; returns the CUresult. */
  public int unregisterHost(long address) {
    try {
      return (int) cuMemHostUnregister.invokeExact(MemorySegment.ofAddress(address));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The base address and size of the allocation that contains {@code address}. */
  public long[] addressRange(long address, int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment base = arena.allocate(JAVA_LONG);
      MemorySegment size = arena.allocate(JAVA_LONG);
      check(
          (int) cuMemGetAddressRange.invokeExact(base, size, address),
          "cuMemGetAddressRange",
          device);
      return new long[] {base.get(JAVA_LONG, 0), size.get(JAVA_LONG, 0)};
    } catch (CudaException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException e) {
      return e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
