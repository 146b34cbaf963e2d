package dev.gpucomm.runtime.report.fetch;

/** A kubeconfig or in-cluster configuration that cannot be used; its message names the problem. */
public final class KubeConfigException extends RuntimeException {
  public KubeConfigException(String message) {
    super(message);
  }
}
