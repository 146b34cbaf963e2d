package dev.gpucomm.e2e.cluster;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/** Writes the objects of a namespace as YAML files, for reading after a failed scenario. */
final class ClusterDump {
  private ClusterDump() {}

  static void write(KubernetesClient client, String namespace, Path directory) throws IOException {
    dump(
        client,
        directory.resolve("commjobs.yaml"),
        () -> client.resources(CommJob.class).inNamespace(namespace).list().getItems());
    dump(
        client,
        directory.resolve("pods.yaml"),
        () -> client.pods().inNamespace(namespace).list().getItems());
    dump(
        client,
        directory.resolve("configmaps.yaml"),
        () -> client.configMaps().inNamespace(namespace).list().getItems());
    dump(
        client,
        directory.resolve("services.yaml"),
        () -> client.services().inNamespace(namespace).list().getItems());
    dump(
        client,
        directory.resolve("events.yaml"),
        () -> client.v1().events().inNamespace(namespace).list().getItems());
  }

  private static void dump(
      KubernetesClient client, Path file, Supplier<List<? extends HasMetadata>> objects)
      throws IOException {
    StringBuilder yaml = new StringBuilder();
    try {
      for (HasMetadata object : objects.get()) {
        yaml.append(client.getKubernetesSerialization().asYaml(object));
      }
    } catch (KubernetesClientException e) {
      yaml.append("# cannot list: ").append(e.getMessage()).append('\n');
    }
    Files.writeString(file, yaml);
  }
}
