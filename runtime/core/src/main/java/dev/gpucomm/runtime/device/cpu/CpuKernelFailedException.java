package dev.gpucomm.runtime.device.cpu;

/** A kernel queued on a CPU stream failed; the cause is what it threw. */
public final class CpuKernelFailedException extends RuntimeException {
  public CpuKernelFailedException(String kernel, String stream, Throwable cause) {
    super(kernel + " on " + stream + " failed: " + describe(cause), cause);
  }

  private static String describe(Throwable cause) {
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}
