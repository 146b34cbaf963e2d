package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Removes the job's deleted pods whose node stopped answering. The API server keeps a deleted pod
 * Terminating until its kubelet says that the containers stopped; a lost node's kubelet never says
 * so, and the pod garbage collector steps in only once the node is deleted or tainted {@code
 * node.kubernetes.io/out-of-service}. A restart or a resumed run needs those pods' names, and would
 * wait for them until {@code spec.schedulingTimeoutSeconds} failed it.
 *
 * <p>A pod is removed, deleted with no grace period as {@code kubectl delete --force} does, only
 * when three things agree: it was deleted a while ago ({@code confirmationWait}: a kubelet that
 * answers confirms within seconds), the pod bears the node controller's NotReady mark, and its Node
 * is gone or says its kubelet stopped posting status (Ready Unknown). A node whose kubelet still
 * reports, even NotReady (a container runtime down), is left to that kubelet: its processes may
 * still hold the GPUs. The deletion names the pod's UID and version, so that neither a pod that
 * changed meanwhile nor a namesake is touched. Should the node come back, its kubelet stops the
 * containers of a pod that no longer exists. A pod held by a finalizer stays for its finalizer.
 */
final class LostPods {
  /** The Event reason of a lost pod deleted with no grace period. */
  static final String REMOVED = "LostPodRemoved";

  /** The first look again at a due candidate that is still here. */
  static final Duration FIRST_RECHECK = Duration.ofSeconds(30);

  /** The longest wait between looks at a due candidate still here. */
  static final Duration LAST_RECHECK = Duration.ofMinutes(10);

  private static final Logger LOG = Logger.getLogger(LostPods.class);

  private static final AtomicBoolean NODE_READ_REFUSAL_SAID = new AtomicBoolean();

  private LostPods() {}

  /**
   * Of {@code pods} (the job's, and those of a deleted namesake whose names it waits for), those
   * deleted more than {@code confirmationWait} before {@code now} (when the deletion was asked,
   * whatever the pod's grace period: a kubelet that answers confirms within seconds, and one that
   * does not never will) that bear the node controller's NotReady mark: the candidates, whose nodes
   * {@link #remove} asks about. A pod already deleted with no grace period is not one of them: a
   * finalizer holds it, which a second deletion cannot change.
   */
  static List<Pod> overdue(Collection<Pod> pods, Duration confirmationWait, Instant now) {
    return pods.stream()
        .filter(
            pod -> removalDue(pod, confirmationWait).filter(due -> !due.isAfter(now)).isPresent())
        .toList();
  }

  /**
   * The removal delay the operator works with, or empty when it removes no pods: a negative delay
   * is taken as none.
   */
  static Optional<Duration> removalDelay(OperatorConfig config) {
    if (!config.removeLostPods()) {
      return Optional.empty();
    }
    Duration delay = config.lostPodRemovalDelay();
    return Optional.of(delay.isNegative() ? Duration.ZERO : delay);
  }

  /**
   * When {@code pod} becomes a candidate for removal ({@link #overdue}), or empty when it never
   * will as it is: not deleted, without the NotReady mark, or already deleted with no grace period.
   */
  static Optional<Instant> removalDue(Pod pod, Duration confirmationWait) {
    if (Long.valueOf(0).equals(pod.getMetadata().getDeletionGracePeriodSeconds())
        || !NodeLoss.nodeLost(pod)) {
      return Optional.empty();
    }
    return deletedAt(pod).map(at -> at.plus(confirmationWait));
  }

  /**
   * When the job should be looked at again for its lost pods: when the next of them falls due, or,
   * while one is due but still here (its Node answers or cannot be read, its deletion was refused),
   * after half the time it has been due, from {@link #FIRST_RECHECK} to {@link #LAST_RECHECK};
   * empty when none of {@code pods} is a candidate now or later. A finished job has no other reason
   * to be looked at, and a Node's change of word is no event the operator watches.
   */
  static Optional<Duration> nextLook(Collection<Pod> pods, Duration confirmationWait, Instant now) {
    return pods.stream()
        .map(pod -> removalDue(pod, confirmationWait))
        .flatMap(Optional::stream)
        .map(due -> due.isAfter(now) ? Duration.between(now, due) : recheck(due, now))
        .min(Comparator.naturalOrder());
  }

  private static Duration recheck(Instant due, Instant now) {
    Duration half = Duration.between(due, now).dividedBy(2);
    if (half.compareTo(FIRST_RECHECK) < 0) {
      return FIRST_RECHECK;
    }
    return half.compareTo(LAST_RECHECK) > 0 ? LAST_RECHECK : half;
  }

  /**
   * Whether the kubelet of {@code node} (empty: the Node is gone) can no longer confirm anything:
   * no Node, or one whose Ready condition the node controller set to Unknown when its kubelet
   * stopped posting status.
   */
  static boolean kubeletSilent(Optional<Node> node) {
    if (node.isEmpty()) {
      return true;
    }
    List<NodeCondition> conditions =
        node.get().getStatus() == null ? null : node.get().getStatus().getConditions();
    return conditions != null
        && conditions.stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "Unknown".equals(c.getStatus()));
  }

  /**
   * Deletes with no grace period each of {@code candidates} whose node's kubelet is silent, and
   * records an Event on {@code job} for it; returns how many the API server took. A Node that
   * cannot be read (the operator's RBAC may not grant it) or a refused deletion (the pod changed or
   * went meanwhile, a policy) leaves the pod.
   */
  static int remove(KubernetesClient client, CommJob job, List<Pod> candidates) {
    int removed = 0;
    // several pods of a job may share a node: it is read once per pass
    Map<String, NodeWord> nodes = new HashMap<>();
    for (Pod pod : candidates) {
      String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (nodeName == null || nodeName.isEmpty()) {
        continue;
      }
      NodeWord word = nodes.computeIfAbsent(nodeName, n -> readNode(client, n));
      if (word.kubeletSilent() && forceDelete(client, job, pod)) {
        removed++;
        CommJobEventRecorder.record(
            client,
            job,
            new CommJobEventRecorder.JobEvent(
                REMOVED,
                CommJobEventRecorder.WARNING,
                "deleted pod %s with no grace period: it was deleted at %s, and node %s %s"
                    .formatted(
                        name(pod),
                        deletedAt(pod).map(Instant::toString).orElse("an unknown time"),
                        nodeName,
                        word == NodeWord.GONE ? "is gone" : "has stopped posting status")));
      }
    }
    return removed;
  }

  private static boolean forceDelete(KubernetesClient client, CommJob job, Pod pod) {
    DeleteOptions now =
        new DeleteOptionsBuilder()
            .withGracePeriodSeconds(0L)
            .withNewPreconditions()
            .withUid(pod.getMetadata().getUid())
            .withResourceVersion(pod.getMetadata().getResourceVersion())
            .endPreconditions()
            .build();
    String namespace = pod.getMetadata().getNamespace();
    try {
      client.raw("/api/v1/namespaces/%s/pods/%s".formatted(namespace, name(pod)), "DELETE", now);
    } catch (KubernetesClientException e) {
      // 404: gone already; 409: changed since the cache saw it, looked at again next time
      if (e.getCode() != 404 && e.getCode() != 409) {
        LOG.warnf(
            "%s/%s: pod %s on a lost node not deleted: %s",
            namespace,
            job.getMetadata().getName(),
            name(pod),
            PodFailureDescriber.lastLine(String.valueOf(e.getMessage())));
      }
      return false;
    }
    LOG.infof(
        "%s/%s: deleted pod %s with no grace period, its node's kubelet being silent",
        namespace, job.getMetadata().getName(), name(pod));
    return true;
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getName();
  }

  /** What the API server says of a pod's Node. */
  private enum NodeWord {
    GONE,
    STOPPED_POSTING,
    REPORTING,
    UNREADABLE;

    boolean kubeletSilent() {
      return this == GONE || this == STOPPED_POSTING;
    }
  }

  /**
   * What the API server says of the Node named {@code name}. The first refusal of the read (a
   * namespaced install grants no Node) is said once.
   */
  private static NodeWord readNode(KubernetesClient client, String name) {
    try {
      Optional<Node> node = Optional.ofNullable(client.nodes().withName(name).get());
      if (node.isEmpty()) {
        return NodeWord.GONE;
      }
      return kubeletSilent(node) ? NodeWord.STOPPED_POSTING : NodeWord.REPORTING;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403 && NODE_READ_REFUSAL_SAID.compareAndSet(false, true)) {
        LOG.warnf(
            "the operator may not get nodes: deleted pods on nodes that stopped answering are left"
                + " to the cluster (grant get on nodes, or set runtime.removeLostPods false)");
      } else {
        LOG.debugf("node %s not read: %s", name, e.getMessage());
      }
      return NodeWord.UNREADABLE;
    }
  }

  /**
   * When the pod's deletion was asked: its deletion timestamp is that time plus the grace period
   * the deletion gave it.
   */
  private static Optional<Instant> deletedAt(Pod pod) {
    String due = pod.getMetadata().getDeletionTimestamp();
    if (due == null) {
      return Optional.empty();
    }
    try {
      long grace =
          Objects.requireNonNullElse(pod.getMetadata().getDeletionGracePeriodSeconds(), 0L);
      return Optional.of(Instant.parse(due).minusSeconds(Math.max(0, grace)));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
