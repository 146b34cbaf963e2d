package dev.gpucomm.runtime.device.cuda;

/** A failed CUDA driver or library call: which call, the CUDA error name and the device. */
public final class CudaException extends RuntimeException {
  private final String call;
  private final String errorName;
  private final int device;

  public CudaException(String call, String errorName, int device) {
    super(call + " failed" + (device >= 0 ? " on cuda device " + device : "") + ": " + errorName);
    this.call = call;
    this.errorName = errorName;
    this.device = device;
  }

  /** The failed function, e.g. {@code cuMemAlloc}. */
  public String call() {
    return call;
  }

  /** The CUDA error name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}. */
  public String errorName() {
    return errorName;
  }

  /** The device ordinal, or -1 when the call concerned no single device. */
  public int device() {
    return device;
  }
}
