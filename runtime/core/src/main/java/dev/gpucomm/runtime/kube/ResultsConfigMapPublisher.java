package dev.gpucomm.runtime.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gpucomm.api.v1alpha1.ReportRun;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Merges rank 0's files into its job's results ConfigMap {@code <job>-results}, which the operator
 * created with the job (the pod's service account may get and patch it, not create it).
 */
public final class ResultsConfigMapPublisher {
  private static final ObjectMapper JSON = new ObjectMapper();

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
   * <p>A stamped report is published only over a report of the same run or an earlier one: the
   * patch carries the resourceVersion it read, so that a failed run's rank 0, publishing late on an
   * unreachable node, can neither overwrite the report of the run that replaced it nor slip in
   * between that run's read and write. Over another run's report, that report's other keys (a plot
   * this run does not draw) are removed in the same patch.
   *
   * @throws KubeApiException naming the ConfigMap when it does not exist, may not be patched, holds
   *     a later run's report, or the API server stayed unreachable or overloaded through every
   *     retry
   */
  public void publish(Map<String, String> data) {
    if (restartAttempt.isEmpty()) {
      patch(data, Optional.empty());
      return;
    }
    int run = restartAttempt.getAsInt();
    for (int tries = 1; ; tries++) {
      ConfigMap current = read();
      OptionalInt published = ReportRun.of(current);
      if (published.isPresent() && published.getAsInt() > run) {
        throw new KubeApiException(
            "not publishing to ConfigMap "
                + namespace
                + "/"
                + configMapName()
                + ": it holds the report of run "
                + published.getAsInt()
                + " of the job, which replaced this run ("
                + run
                + ")",
            409);
      }
      Map<String, String> withStaleKeysRemoved = new LinkedHashMap<>(data);
      if (!ReportRun.isOf(current, run) && current.getData() != null) {
        current.getData().keySet().forEach(key -> withStaleKeysRemoved.putIfAbsent(key, null));
      }
      try {
        patch(
            withStaleKeysRemoved, Optional.ofNullable(current.getMetadata().getResourceVersion()));
        return;
      } catch (KubeApiException e) {
        // 409: the ConfigMap changed since it was read (the operator emptying it, another run
        // publishing); read it again, after a pause that keeps two writers from meeting again
        if (e.status() != 409 || tries == CONFLICT_TRIES) {
          throw e;
        }
        pauseBeforeTry(tries + 1);
      }
    }
  }

  /** How often a stamped publish reads the ConfigMap again after it changed under the patch. */
  static final int CONFLICT_TRIES = 5;

  /** 50 to 100 ms before the second try, doubling for each further one (at most 1.5 s in all). */
  private static void pauseBeforeTry(int tries) {
    long millis = (50L << (tries - 2)) + ThreadLocalRandom.current().nextLong(50L << (tries - 2));
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeApiException("interrupted while publishing the report", e);
    }
  }

  private ConfigMap read() {
    ConfigMap current;
    try {
      current = client.configMaps().inNamespace(namespace).withName(configMapName()).get();
    } catch (KubernetesClientException e) {
      throw KubeApiException.of(
          e, "get", namespace, configMapName(), client.getMasterUrl().toString());
    }
    if (current == null) {
      throw new KubeApiException(
          "cannot get ConfigMap "
              + namespace
              + "/"
              + configMapName()
              + ": HTTP 404 (not found: the operator creates it with the job)",
          404);
    }
    return current;
  }

  private void patch(Map<String, String> data, Optional<String> readAtVersion) {
    ObjectNode patch = JSON.createObjectNode();
    ObjectNode values = patch.putObject("data");
    // a null value removes the key
    data.forEach(values::put);
    if (restartAttempt.isPresent() || readAtVersion.isPresent()) {
      ObjectNode metadata = patch.putObject("metadata");
      // in the same patch: the report and the run it is of change together
      restartAttempt.ifPresent(
          attempt ->
              metadata
                  .putObject("annotations")
                  .put(ReportRun.ANNOTATION, Integer.toString(attempt)));
      // a merge patch that names a resourceVersion is refused (409) unless it is the current one
      readAtVersion.ifPresent(version -> metadata.put("resourceVersion", version));
    }
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
