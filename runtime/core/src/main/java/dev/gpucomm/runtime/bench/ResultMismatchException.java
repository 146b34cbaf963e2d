package dev.gpucomm.runtime.bench;

/** A collective's output differs from the float64 reference by more than its tolerance. */
public final class ResultMismatchException extends RuntimeException {
  public ResultMismatchException(String message) {
    super(message);
  }
}
