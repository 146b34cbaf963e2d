package dev.gpucomm.runtime.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Merges rank 0's files into its job's results ConfigMap {@code <job>-results}, which the operator
 * created with the job (the pod's service account may get and patch it, not create it).
 */
public final class ResultsConfigMapPublisher {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Annotation of the results ConfigMap: the run (the restart attempt of the job's pods) whose
   * report its data holds, so that the operator never takes a failed run's late report for the run
   * after its restart.
   */
  public static final String RESTART_ATTEMPT_ANNOTATION = "gpucomm.dev/restart-attempt";

  private final KubernetesClient client;
  private final String namespace;
  private final String job;
  private final OptionalInt restartAttempt;

  /**
   * {@code client} should retry as {@link RetryPolicy#RESULTS} does; {@code restartAttempt} is the
   * run the pod belongs to, when the operator said.
   */
  public ResultsConfigMapPublisher(
      KubernetesClient client, String namespace, String job, OptionalInt restartAttempt) {
    this.client = client;
    this.namespace = namespace;
    this.job = job;
    this.restartAttempt = restartAttempt;
  }

  public static String configMapName(String job) {
    return job + "-results";
  }

  public String configMapName() {
    return configMapName(job);
  }

  /**
   * Sets {@code data} keys of the results ConfigMap by a JSON merge patch, so keys already there
   * stay, and stamps the run they are of.
   *
   * @throws KubeApiException naming the ConfigMap when it does not exist, may not be patched, or
   *     the API server stayed unreachable or overloaded through every retry
   */
  public void publish(Map<String, String> data) {
    ObjectNode patch = JSON.createObjectNode();
    ObjectNode values = patch.putObject("data");
    data.forEach(values::put);
    // in the same patch: the report and the run it is of change together
    restartAttempt.ifPresent(
        attempt ->
            patch
                .putObject("metadata")
                .putObject("annotations")
                .put(RESTART_ATTEMPT_ANNOTATION, Integer.toString(attempt)));
    // Named by an object rather than withName(): that way Fabric8 sends the patch alone, without
    // reading the ConfigMap first.
    Resource<ConfigMap> configMap =
        client
            .configMaps()
            .inNamespace(namespace)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(configMapName())
                    .withNamespace(namespace)
                    .endMetadata()
                    .build());
    try {
      configMap.patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    } catch (KubernetesClientException e) {
      throw KubeApiException.of(
          e, "patch", namespace, configMapName(), client.getMasterUrl().toString());
    }
  }
}
