package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.ReportRun;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** What a test does to and reads from the mock cluster, in the words of the scenarios. */
final class TestCluster {
  static final Duration PATIENCE = Duration.ofSeconds(15);

  final KubernetesClient client;
  final String namespace;
  final FakeKubelet kubelet;

  TestCluster(KubernetesClient client) {
    this.client = client;
    this.namespace = client.getNamespace();
    this.kubelet = new FakeKubelet(client, namespace);
  }

  /** Creates the CommJob described by {@code yaml} (metadata and spec). */
  CommJob apply(String yaml) {
    CommJob job =
        client
            .getKubernetesSerialization()
            .unmarshal("apiVersion: gpucomm.dev/v1alpha1\nkind: CommJob\n" + yaml, CommJob.class);
    return client.resources(CommJob.class).inNamespace(namespace).resource(job).create();
  }

  CommJob job(String name) {
    return client.resources(CommJob.class).inNamespace(namespace).withName(name).get();
  }

  /** Changes the job as a user's or a queue's edit would (kubectl edit, Kueue's suspend). */
  void edit(String name, Consumer<CommJob> change) {
    client
        .resources(CommJob.class)
        .inNamespace(namespace)
        .withName(name)
        .edit(
            job -> {
              change.accept(job);
              return job;
            });
  }

  /** Waits until the job's status satisfies {@code condition}, and returns it. */
  CommJobStatus awaitStatus(String name, Predicate<CommJobStatus> condition) {
    AtomicReference<CommJobStatus> matched = new AtomicReference<>();
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              CommJob job = job(name);
              CommJobStatus status = job == null ? null : job.getStatus();
              assertThat(status != null && condition.test(status))
                  .as("status of %s: %s", name, client.getKubernetesSerialization().asYaml(status))
                  .isTrue();
              matched.set(status);
            });
    return matched.get();
  }

  List<Pod> pods(String job) {
    return client.pods().inNamespace(namespace).withLabel(CommJob.JOB_LABEL, job).list().getItems();
  }

  /** Waits until the job's pods are exactly {@code names}; returns them in that order. */
  List<Pod> awaitPods(String job, String... names) {
    return await()
        .atMost(PATIENCE)
        .until(
            () ->
                pods(job).stream()
                    .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                    .toList(),
            pods ->
                pods.stream().map(p -> p.getMetadata().getName()).toList().equals(List.of(names)));
  }

  /**
   * Sets the pod's finalizers: with one, a deleted pod stays Terminating until it is removed, as a
   * grace period keeps it on a real node.
   */
  Pod setFinalizers(String pod, List<String> finalizers) {
    return client
        .pods()
        .inNamespace(namespace)
        .withName(pod)
        .edit(
            p -> {
              p.getMetadata().setFinalizers(finalizers);
              return p;
            });
  }

  ConfigMap configMap(String name) {
    return client.configMaps().inNamespace(namespace).withName(name).get();
  }

  /**
   * Patches report.json into the results ConfigMap, as rank 0 of a runtime that stamps no run does
   * at the end of a run.
   */
  void publishReport(String job, String reportJson) {
    publishReport(job, reportJson, OptionalInt.empty());
  }

  /** As {@link #publishReport(String, String)}, by rank 0 of run {@code restartAttempt}. */
  void publishReport(String job, String reportJson, int restartAttempt) {
    publishReport(job, reportJson, OptionalInt.of(restartAttempt));
  }

  private void publishReport(String job, String reportJson, OptionalInt restartAttempt) {
    client
        .configMaps()
        .inNamespace(namespace)
        .withName(job + "-results")
        .edit(
            cm -> {
              cm.setData(Map.of("report.json", reportJson, "report.md", "| size | ... |"));
              restartAttempt.ifPresent(
                  attempt ->
                      cm.getMetadata()
                          .setAnnotations(Map.of(ReportRun.ANNOTATION, Integer.toString(attempt))));
              return cm;
            });
  }

  void createConfigMap(String name, String key, String value) {
    client
        .configMaps()
        .inNamespace(namespace)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withData(Map.of(key, value))
                .build())
        .create();
  }

  static Condition condition(CommJobStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no condition " + type + " in " + status.getConditions()));
  }

  static boolean hasCondition(CommJobStatus status, String type, String value, String reason) {
    return status.getConditions() != null
        && status.getConditions().stream()
            .anyMatch(
                c ->
                    c.getType().equals(type)
                        && c.getStatus().equals(value)
                        && c.getReason().equals(reason));
  }
}
