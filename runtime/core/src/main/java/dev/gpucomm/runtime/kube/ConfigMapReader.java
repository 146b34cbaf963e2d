package dev.gpucomm.runtime.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.Optional;

/** Reads the data of ConfigMaps of one namespace (a job's tuning tables, say). */
public final class ConfigMapReader {
  private final KubernetesClient client;
  private final String namespace;

  public ConfigMapReader(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** The data of ConfigMap {@code name}; empty when it does not exist. */
  public Optional<Map<String, String>> data(String name) {
    ConfigMap configMap;
    try {
      configMap = client.configMaps().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      throw KubeApiException.of(e, "read", namespace, name, client.getMasterUrl().toString());
    }
    return Optional.ofNullable(configMap)
        .map(found -> found.getData() == null ? Map.of() : Map.copyOf(found.getData()));
  }
}
