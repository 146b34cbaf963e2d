package dev.gpucomm.runtime.device;

import dev.gpucomm.api.v1alpha1.DType;

/** Row-major matrix products C[m, n] = A[m, k] x B[k, n] with fp32 accumulation. */
public interface Matmul {
  /**
   * Computes C = A x B (or C += A x B when {@code accumulate}) in stream order. A, B and C are
   * dense row-major matrices of {@code dtype}.
   */
  void multiply(
      DeviceBuffer a,
      DeviceBuffer b,
      DeviceBuffer c,
      long m,
      long n,
      long k,
      DType dtype,
      boolean accumulate,
      Stream stream);
}
