package dev.gpucomm.runtime.kube;

/** A Kubernetes API call that failed; the message names the object, the status and the reason. */
public final class KubeApiException extends RuntimeException {
  private final int status;

  public KubeApiException(String message, int status) {
    super(message);
    this.status = status;
  }

  public KubeApiException(String message, Throwable cause) {
    super(message, cause);
    this.status = -1;
  }

  /** The HTTP status, or -1 when the API server was not reached. */
  public int status() {
    return status;
  }
}
