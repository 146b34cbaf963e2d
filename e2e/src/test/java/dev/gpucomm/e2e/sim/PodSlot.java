package dev.gpucomm.e2e.sim;

import dev.gpucomm.api.v1alpha1.ReportRun;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which pod of which job a simulated pod is: the job's incarnation (its CommJob's uid, so that a
 * job created again under the same name gets new addresses), the run it belongs to (its restart
 * attempt, so that a restarted run's pods get new addresses while the failed run's still stop, as
 * new pods get new IPs in a cluster), the pod's index and the job's pod count, as the operator's
 * labels and environment tell them.
 */
record PodSlot(String namespace, String job, String jobUid, int attempt, int index, int podCount) {
  static final String RESTART_ATTEMPT_LABEL = ReportRun.ANNOTATION;
  static final String POD_INDEX = "GPUCOMM_POD_INDEX";
  static final String WORLD_SIZE = "GPUCOMM_WORLD_SIZE";
  static final String RANKS_PER_POD = "GPUCOMM_RANKS_PER_POD";

  static PodSlot of(Pod pod, String job, Map<String, String> environment) {
    String namespace = pod.getMetadata().getNamespace();
    String jobUid =
        Optional.ofNullable(pod.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
            .filter(owner -> "CommJob".equals(owner.getKind()))
            .map(OwnerReference::getUid)
            .findFirst()
            .orElse(namespace + "/" + job);
    Map<String, String> labels =
        Optional.ofNullable(pod.getMetadata().getLabels()).orElse(Map.of());
    int attempt = number(labels, RESTART_ATTEMPT_LABEL, 0);
    int index = number(environment, POD_INDEX, 0);
    int podCount =
        Math.max(1, number(environment, WORLD_SIZE, 1) / number(environment, RANKS_PER_POD, 1));
    return new PodSlot(namespace, job, jobUid, attempt, index, Math.max(podCount, index + 1));
  }

  /** The same job's pod of another index. */
  PodSlot sibling(int otherIndex) {
    return new PodSlot(namespace, job, jobUid, attempt, otherIndex, podCount);
  }

  /** The pod's DNS name through the job's headless service, as the operator names it. */
  String dnsName() {
    return job + "-" + index + "." + job + "." + namespace + ".svc";
  }

  private static int number(Map<String, String> values, String name, int fallback) {
    try {
      return Integer.parseInt(values.getOrDefault(name, "").strip());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
