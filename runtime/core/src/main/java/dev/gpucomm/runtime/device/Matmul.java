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

  /**
   * Refuses dimensions below {@code least} or above {@link Integer#MAX_VALUE}, the largest a
   * backend indexes rows, columns and the inner dimension with.
   */
  static void requireDimensions(long m, long n, long k, long least) {
    long most = Integer.MAX_VALUE;
    if (m < least || n < least || k < least || m > most || n > most || k > most) {
      throw new IllegalArgumentException(
          "matmul dimensions must be in %d..%d, got m=%d n=%d k=%d"
              .formatted(least, most, m, n, k));
    }
  }

  /**
   * The bytes a dense {@code rows} x {@code columns} operand of {@code dtype} takes, refusing a
   * buffer of {@code holds} bytes that is smaller.
   */
  static long requireOperand(String role, long holds, long rows, long columns, DType dtype) {
    long bytes;
    try {
      bytes = Math.multiplyExact(Math.multiplyExact(rows, columns), (long) dtype.bytes());
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("matmul: " + role + " is too large", e);
    }
    if (holds < bytes) {
      throw new IllegalArgumentException(
          "matmul: %s holds %d bytes, %d x %d %s needs %d"
              .formatted(role, holds, rows, columns, dtype, bytes));
    }
    return bytes;
  }
}
