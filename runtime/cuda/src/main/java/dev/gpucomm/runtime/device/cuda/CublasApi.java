package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * cuBLAS functions called through the FFM API on {@code libcublas.so.13} (JCublas 12.6 needs
 * libcublas.so.12, which CUDA 13 hosts do not have). Set GPUCOMM_CUBLAS_LIBRARY to a path to use
 * another copy.
 */
public final class CublasApi {
  public static final int CUBLAS_OP_N = 0;
  public static final int CUDA_R_32F = 0;
  public static final int CUDA_R_16F = 2;
  public static final int CUDA_R_16BF = 14;
  public static final int CUBLAS_COMPUTE_32F = 68;
  public static final int CUBLAS_GEMM_DEFAULT = -1;

  /** Every function this binding calls, with the C signature used. */
  static final Map<String, FunctionDescriptor> FUNCTIONS;

  static {
    Map<String, FunctionDescriptor> f = new LinkedHashMap<>();
    f.put("cublasCreate_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("cublasDestroy_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    f.put("cublasSetStream_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    f.put("cublasSetWorkspace_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    f.put("cublasSetSmCountTarget", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    f.put(
        "cublasGemmEx",
        FunctionDescriptor.of(
            JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT));
    f.put("cublasGetStatusName", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    FUNCTIONS = Collections.unmodifiableMap(f);
  }

  private static final LoadedOnce<CublasApi> BINDING = new LoadedOnce<>(CublasApi::tryLoad);

  private final String source;
  private final MethodHandle create;
  private final MethodHandle destroy;
  private final MethodHandle setStream;
  private final MethodHandle setWorkspace;
  private final MethodHandle setSmCountTarget;
  private final MethodHandle gemmEx;
  private final MethodHandle statusName;

  private CublasApi(java.lang.foreign.SymbolLookup lookup, String source) {
    this.source = source;
    Map<String, MethodHandle> handles = NativeLibraries.bind(lookup, source, FUNCTIONS);
    create = handles.get("cublasCreate_v2");
    destroy = handles.get("cublasDestroy_v2");
    setStream = handles.get("cublasSetStream_v2");
    setWorkspace = handles.get("cublasSetWorkspace_v2");
    setSmCountTarget = handles.get("cublasSetSmCountTarget");
    gemmEx = handles.get("cublasGemmEx");
    statusName = handles.get("cublasGetStatusName");
  }

  /**
   * The cuBLAS binding, loaded once per process.
   *
   * @throws IllegalStateException naming every place looked at when cuBLAS cannot be loaded
   */
  public static CublasApi get() {
    return BINDING.get();
  }

  private static CublasApi tryLoad() {
    List<String> failures = new ArrayList<>();
    var library =
        NativeLibraries.load(
            "GPUCOMM_CUBLAS_LIBRARY",
            List.of("libcublas.so.13", "libcublas.so.12"),
            List.of(
                Path.of("/usr/local/cuda/lib64"),
                Path.of("/usr/local/cuda/targets/x86_64-linux/lib"),
                Path.of("/usr/lib/x86_64-linux-gnu")),
            failures);
    if (library.isEmpty()) {
      throw new IllegalStateException(
          "cuBLAS (libcublas.so.13) was not found; set GPUCOMM_CUBLAS_LIBRARY to its path ("
              + String.join("; ", failures)
              + ")");
    }
    return new CublasApi(library.get().lookup(), library.get().source());
  }

  public String source() {
    return source;
  }

  MemorySegment create(int device) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      check((int) create.invokeExact(out), "cublasCreate", device);
      return out.get(ADDRESS, 0);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void destroy(MemorySegment handle, int device) {
    try {
      check((int) destroy.invokeExact(handle), "cublasDestroy", device);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void setStream(MemorySegment handle, MemorySegment stream, int device) {
    try {
      check((int) setStream.invokeExact(handle, stream), "cublasSetStream", device);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void setWorkspace(MemorySegment handle, long workspace, long bytes, int device) {
    try {
      check(
          (int) setWorkspace.invokeExact(handle, MemorySegment.ofAddress(workspace), bytes),
          "cublasSetWorkspace",
          device);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * How many multiprocessors the handle's later GEMMs plan for (cuBLAS 11.3 and later); 0 restores
   * the default, every multiprocessor of the GPU.
   */
  void setSmCountTarget(MemorySegment handle, int multiprocessors, int device) {
    try {
      check(
          (int) setSmCountTarget.invokeExact(handle, multiprocessors),
          "cublasSetSmCountTarget",
          device);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** cublasGemmEx with no transposes; all matrices column-major. */
  void gemm(
      MemorySegment handle,
      int m,
      int n,
      int k,
      MemorySegment alpha,
      long a,
      int aType,
      int lda,
      long b,
      int bType,
      int ldb,
      MemorySegment beta,
      long c,
      int cType,
      int ldc,
      int device) {
    try {
      int status =
          (int)
              gemmEx.invokeExact(
                  handle,
                  CUBLAS_OP_N,
                  CUBLAS_OP_N,
                  m,
                  n,
                  k,
                  alpha,
                  MemorySegment.ofAddress(a),
                  aType,
                  lda,
                  MemorySegment.ofAddress(b),
                  bType,
                  ldb,
                  beta,
                  MemorySegment.ofAddress(c),
                  cType,
                  ldc,
                  CUBLAS_COMPUTE_32F,
                  CUBLAS_GEMM_DEFAULT);
      check(status, "cublasGemmEx", device);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private void check(int status, String call, int device) {
    if (status != 0) {
      String name;
      try {
        MemorySegment text = (MemorySegment) statusName.invokeExact(status);
        name = text.reinterpret(128).getString(0);
      } catch (Throwable t) {
        name = "CUBLAS_STATUS " + status;
      }
      throw new CudaException(call, name, device);
    }
  }
}
