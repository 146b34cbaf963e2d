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

  /**
   * The same products, planned for at most {@code multiprocessors} streaming multiprocessors, so
   * that work on other streams (a collective's kernels) finds the rest of the GPU free. A backend
   * without multiprocessors to leave free may return itself.
   *
   * @throws IllegalArgumentException when {@code multiprocessors} is below 1
   */
  Matmul limitedTo(int multiprocessors);
}
