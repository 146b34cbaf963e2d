package dev.gpucomm.runtime.report.fetch;

import io.fabric8.kubernetes.client.Config;

/**
 * The cluster {@code gpucomm report} reads from, as Fabric8 configured it, and where that came from
 * (for messages).
 */
record ClusterConfig(Config config, String source) {
  /** The namespace of the context (or of the pod's service account); "default" when none. */
  String namespace() {
    String namespace = config.getNamespace();
    return namespace == null || namespace.isBlank() ? "default" : namespace;
  }
}
