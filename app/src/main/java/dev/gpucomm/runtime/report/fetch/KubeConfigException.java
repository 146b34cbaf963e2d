package dev.gpucomm.runtime.report.fetch;

import dev.gpucomm.runtime.UsageException;

/**
 * A kubeconfig or in-cluster configuration that cannot be used: a usage error (exit code 2) whose
 * message names the file and the problem.
 */
public final class KubeConfigException extends UsageException {
  public KubeConfigException(String message) {
    super(message);
  }

  public KubeConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
