package dev.gpucomm.runtime.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

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

  /**
   * The one-line account of a failed call on ConfigMap {@code namespace/name}: the HTTP status and
   * what it means for a rank, or that the API server at {@code server} could not be reached.
   */
  static KubeApiException of(
      KubernetesClientException failure,
      String verb,
      String namespace,
      String name,
      String server) {
    String what = "cannot " + verb + " ConfigMap " + namespace + "/" + name;
    int status = failure.getCode();
    if (status <= 0) {
      Throwable cause = failure.getCause() == null ? failure : failure.getCause();
      return new KubeApiException(
          what
              + ": API server "
              + server
              + " unreachable ("
              + (cause.getMessage() == null ? cause.toString() : cause.getMessage())
              + ")",
          failure);
    }
    String hint =
        switch (status) {
          case 401 -> " (the service account token was rejected)";
          case 403 -> " (the pod's service account may not " + verb + " it)";
          case 404 -> " (not found: the operator creates it with the job)";
          default -> "";
        };
    String reason =
        failure.getStatus() == null || failure.getStatus().getMessage() == null
            ? ""
            : failure.getStatus().getMessage().lines().findFirst().orElse("");
    return new KubeApiException(
        what + ": HTTP " + status + hint + (reason.isBlank() ? "" : ": " + reason), status);
  }

  /** The HTTP status, or -1 when the API server was not reached. */
  public int status() {
    return status;
  }
}
