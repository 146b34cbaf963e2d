package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * spec.ttlSecondsAfterFinished: a finished job is deleted that long after its completion time, so
 * that jobs created by CI with generateName do not pile up. Its pods go first, then the CommJob,
 * whose deletion takes its ConfigMaps (the results among them) and other objects with it.
 */
final class FinishedJobTtl {
  private FinishedJobTtl() {}

  /** How long until {@code job}, with {@code status}, is due for deletion; empty if never. */
  static Optional<Duration> timeLeft(CommJob job, CommJobStatus status, Instant now) {
    Integer ttl = job.getSpec() == null ? null : job.getSpec().getTtlSecondsAfterFinished();
    if (ttl == null || status.getCompletionTime() == null) {
      return Optional.empty();
    }
    Instant due = Instant.parse(status.getCompletionTime()).plusSeconds(ttl);
    return Optional.of(Duration.between(now, due));
  }

  /** Deletes the job's pods, then the job. */
  static void expire(KubernetesClient client, CommJob job) {
    String namespace = job.getMetadata().getNamespace();
    for (Pod pod :
        client
            .pods()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job.getMetadata().getName())
            .list()
            .getItems()) {
      boolean ownPod =
          pod.getMetadata().getOwnerReferences().stream()
              .anyMatch(owner -> job.getMetadata().getUid().equals(owner.getUid()));
      if (ownPod) {
        client.pods().inNamespace(namespace).resource(pod).delete();
      }
    }
    client
        .resources(CommJob.class)
        .inNamespace(namespace)
        .withName(job.getMetadata().getName())
        .withPropagationPolicy(DeletionPropagation.BACKGROUND)
        .delete();
  }
}
