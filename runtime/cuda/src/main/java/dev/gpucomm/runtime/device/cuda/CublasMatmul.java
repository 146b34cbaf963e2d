package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Matmul;
import dev.gpucomm.runtime.device.Stream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Row-major matrix products through cublasGemmEx with fp32 accumulation. cuBLAS is column-major; a
 * row-major matrix read as column-major is its transpose, so C = A·B is computed as Cᵀ = Bᵀ·Aᵀ by
 * swapping the operands: gemm(n, m, k, B, ldb = n, A, lda = k, C, ldc = n).
 *
 * <p>The handle gets its own workspace so that products can be captured into CUDA graphs (cuBLAS
 * would otherwise allocate during capture).
 *
 * <p>The SM count target is per handle: the views of {@link #limitedTo} set it before each of their
 * products, and unlimited products set it back to cuBLAS's default (0, every multiprocessor), so
 * that the two can alternate on one handle.
 */
final class CublasMatmul implements Matmul, AutoCloseable {
  private static final long WORKSPACE_BYTES = 32L << 20;

  /** cublasSetSmCountTarget's value for "every multiprocessor of the GPU". */
  private static final int ALL_MULTIPROCESSORS = 0;

  private final CudaDevice device;
  private final CublasApi api;
  private final MemorySegment handle;
  private final CudaBuffer workspace;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment one;
  private final MemorySegment zero;
  private final NativeHandle state;
  private MemorySegment boundStream = MemorySegment.NULL;

  private CublasMatmul(
      CudaDevice device, CublasApi api, MemorySegment handle, CudaBuffer workspace) {
    this.device = device;
    this.api = api;
    this.handle = handle;
    this.workspace = workspace;
    this.one = arena.allocate(JAVA_FLOAT);
    one.set(JAVA_FLOAT, 0, 1f);
    this.zero = arena.allocate(JAVA_FLOAT);
    zero.set(JAVA_FLOAT, 0, 0f);
    this.state = new NativeHandle("cublas handle on device " + device.ordinal());
  }

  static CublasMatmul create(CudaDevice device) {
    CublasApi api = CublasApi.get();
    device.bind();
    MemorySegment handle = api.create(device.ordinal());
    CudaBuffer workspace = (CudaBuffer) device.allocateShareable(WORKSPACE_BYTES);
    try {
      api.setWorkspace(handle, workspace.address(), WORKSPACE_BYTES, device.ordinal());
    } catch (RuntimeException e) {
      api.destroy(handle, device.ordinal());
      workspace.close();
      throw e;
    }
    return new CublasMatmul(device, api, handle, workspace);
  }

  @Override
  public void multiply(
      DeviceBuffer a,
      DeviceBuffer b,
      DeviceBuffer c,
      long m,
      long n,
      long k,
      DType dtype,
      boolean accumulate,
      Stream stream) {
    multiply(a, b, c, m, n, k, dtype, accumulate, stream, ALL_MULTIPROCESSORS);
  }

  @Override
  public Matmul limitedTo(int multiprocessors) {
    if (multiprocessors < 1 || multiprocessors > device.multiprocessors()) {
      throw new IllegalArgumentException(
          "a matmul on "
              + device.name()
              + " can be limited to 1.."
              + device.multiprocessors()
              + " multiprocessors, got "
              + multiprocessors);
    }
    return new LimitedMatmul(multiprocessors);
  }

  /** Products of the same handle, each planned for {@code multiprocessors} SMs. */
  private final class LimitedMatmul implements Matmul {
    private final int multiprocessors;

    LimitedMatmul(int multiprocessors) {
      this.multiprocessors = multiprocessors;
    }

    @Override
    public void multiply(
        DeviceBuffer a,
        DeviceBuffer b,
        DeviceBuffer c,
        long m,
        long n,
        long k,
        DType dtype,
        boolean accumulate,
        Stream stream) {
      CublasMatmul.this.multiply(a, b, c, m, n, k, dtype, accumulate, stream, multiprocessors);
    }

    @Override
    public Matmul limitedTo(int otherLimit) {
      return CublasMatmul.this.limitedTo(otherLimit);
    }
  }

  private synchronized void multiply(
      DeviceBuffer a,
      DeviceBuffer b,
      DeviceBuffer c,
      long m,
      long n,
      long k,
      DType dtype,
      boolean accumulate,
      Stream stream,
      int smCountTarget) {
    state.checkOpen();
    Matmul.requireDimensions(m, n, k, 1);
    Matmul.requireOperand("A", a.byteSize(), m, k, dtype);
    Matmul.requireOperand("B", b.byteSize(), k, n, dtype);
    Matmul.requireOperand("C", c.byteSize(), m, n, dtype);
    int rows = (int) m;
    int columns = (int) n;
    int inner = (int) k;
    int type =
        switch (dtype) {
          case BF16 -> CublasApi.CUDA_R_16BF;
          case FP16 -> CublasApi.CUDA_R_16F;
          case FP32 -> CublasApi.CUDA_R_32F;
        };
    device.bind();
    MemorySegment rawStream = CudaDevice.rawStream(stream);
    if (!rawStream.equals(boundStream)) {
      api.setStream(handle, rawStream, device.ordinal());
      boundStream = rawStream;
    }
    // Set on every product, not only on changes: a host call of no measurable cost that keeps
    // each product's limit independent of what ran on the handle before it.
    api.setSmCountTarget(handle, smCountTarget, device.ordinal());
    api.gemm(
        handle,
        columns,
        rows,
        inner,
        one,
        b.address(),
        type,
        columns,
        a.address(),
        type,
        inner,
        accumulate ? one : zero,
        c.address(),
        type,
        columns,
        device.ordinal());
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      try {
        api.destroy(handle, device.ordinal());
      } finally {
        workspace.close();
        arena.close();
      }
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
