package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * spec.ttlSecondsAfterFinished: a finished job is deleted that long after its completion time, so
 * that jobs created by CI with generateName do not pile up. The CommJob goes, and with it its
 * ConfigMaps (the results among them) and other objects; its pods are deleted at once too.
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

  /** How soon a job that changed as it was due is looked at again. */
  static final Duration CHANGED_RECHECK = Duration.ofSeconds(1);

  /**
   * Deletes the job at the version read, then its pods: a namesake created after this one was
   * deleted (a CI deleting and applying again) is another job, and an edit made since (a longer
   * TTL) is read first, before anything is gone. The pods would go with the job, by the garbage
   * collector; deleting them at once frees their GPUs without waiting for it. Returns false when
   * the job changed, so that it is looked at again.
   */
  static boolean expire(KubernetesClient client, CommJob job) {
    String namespace = job.getMetadata().getNamespace();
    try {
      client
          .resources(CommJob.class)
          .inNamespace(namespace)
          .withName(job.getMetadata().getName())
          // the client's default propagation, Background: the garbage collector takes the rest
          .lockResourceVersion(job.getMetadata().getResourceVersion())
          .delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return false;
      }
      throw e;
    }
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
    return true;
  }
}
