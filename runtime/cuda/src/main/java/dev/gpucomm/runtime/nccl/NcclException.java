package dev.gpucomm.runtime.nccl;

/** A failed NCCL call, with NCCL's own words for it (ncclGetErrorString and ncclGetLastError). */
public final class NcclException extends RuntimeException {
  private final String call;
  private final int result;

  public NcclException(String call, int result, String errorString, String lastError) {
    super(
        call
            + " failed: "
            + errorString
            + " (ncclResult "
            + result
            + ")"
            + (lastError == null || lastError.isBlank() ? "" : ": " + lastError.strip()));
    this.call = call;
    this.result = result;
  }

  public String call() {
    return call;
  }

  /** The ncclResult_t code. */
  public int result() {
    return result;
  }
}
