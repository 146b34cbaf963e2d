package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Removes the job's deleted pods whose node stopped answering. The API server keeps a deleted pod
 * Terminating until its kubelet says that the containers stopped; a lost node's kubelet never says
 * so, and the pod garbage collector steps in only once the node is deleted or tainted {@code
 * node.kubernetes.io/out-of-service}. A restart or a resumed run needs those pods' names, and would
 * wait for them until {@code spec.schedulingTimeoutSeconds} failed it.
 *
 * <p>A pod whose deletion fell due a while ago ({@code confirmationWait}: a kubelet that answers
 * confirms within seconds) and that still shows its node lost is deleted with no grace period, as
 * {@code kubectl delete --force} does; the deletion names the pod's UID and version, so that
 * neither a pod that changed meanwhile nor a namesake is touched. Should the node come back, its
 * kubelet stops the containers of a pod that no longer exists. A pod held by a finalizer stays for
 * its finalizer.
 */
final class LostPods {
  /** The Event reason of a lost pod removed. */
  static final String REMOVED = "LostPodRemoved";

  private static final Logger LOG = Logger.getLogger(LostPods.class);

  private LostPods() {}

  /**
   * The job's terminating pods whose deletion fell due more than {@code confirmationWait} before
   * {@code now} and whose node, as the pod shows, does not answer. A pod already deleted with no
   * grace period is not one of them: a finalizer holds it, which a second deletion cannot change.
   */
  static List<Pod> overdue(JobObservation observation, Duration confirmationWait, Instant now) {
    return observation.terminatingPods().stream()
        .filter(pod -> !Long.valueOf(0).equals(pod.getMetadata().getDeletionGracePeriodSeconds()))
        .filter(pod -> dueBefore(pod, now.minus(confirmationWait)))
        .filter(JobOutcomeJudge::nodeLost)
        .toList();
  }

  /**
   * Deletes each of {@code pods} with no grace period and records an Event on {@code job} for it. A
   * refusal (the pod changed or went meanwhile, a policy) leaves the pod to the next
   * reconciliation.
   */
  static void remove(KubernetesClient client, CommJob job, List<Pod> pods) {
    for (Pod pod : pods) {
      String namespace = pod.getMetadata().getNamespace();
      String name = pod.getMetadata().getName();
      DeleteOptions now =
          new DeleteOptionsBuilder()
              .withGracePeriodSeconds(0L)
              .withNewPreconditions()
              .withUid(pod.getMetadata().getUid())
              .withResourceVersion(pod.getMetadata().getResourceVersion())
              .endPreconditions()
              .build();
      try {
        client.raw("/api/v1/namespaces/%s/pods/%s".formatted(namespace, name), "DELETE", now);
      } catch (KubernetesClientException e) {
        LOG.warnf(
            "%s/%s: pod %s on a lost node not removed: %s",
            namespace,
            job.getMetadata().getName(),
            name,
            PodFailureDescriber.lastLine(String.valueOf(e.getMessage())));
        continue;
      }
      LOG.infof(
          "%s/%s: removed pod %s, whose node stopped answering",
          namespace, job.getMetadata().getName(), name);
      CommJobEventRecorder.record(
          client,
          job,
          new CommJobEventRecorder.JobEvent(
              REMOVED,
              CommJobEventRecorder.WARNING,
              ("removed pod %s with no grace period: its deletion fell due at %s and its node"
                      + " still does not answer; the job's next pods take its name")
                  .formatted(name, pod.getMetadata().getDeletionTimestamp())));
    }
  }

  private static boolean dueBefore(Pod pod, Instant instant) {
    String due = pod.getMetadata().getDeletionTimestamp();
    if (due == null) {
      return false;
    }
    try {
      return Instant.parse(due).isBefore(instant);
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
