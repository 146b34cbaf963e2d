package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;

/**
 * Where the pods of a job go unless its template says otherwise: one pod per node for device cuda,
 * since a pod holds a node's GPUs and its ranks talk over CUDA IPC and NVLink, while pods of one
 * job on one node would split that node's GPUs and talk over the network instead. CPU jobs, which
 * run many pods on one node in development clusters, get no such rule.
 */
final class RankPodPlacement {
  static final String HOSTNAME_TOPOLOGY = "kubernetes.io/hostname";

  private RankPodPlacement() {}

  /** The default affinity of the pods of {@code job}, or null for none. */
  static Affinity defaultAffinity(CommJob job, JobLayout layout) {
    if (layout.device() != DeviceKind.CUDA) {
      return null;
    }
    return new AffinityBuilder()
        .withNewPodAntiAffinity()
        .addNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withTopologyKey(HOSTNAME_TOPOLOGY)
        .withNewLabelSelector()
        .addToMatchLabels(CommJob.JOB_LABEL, JobNames.of(job).job())
        .endLabelSelector()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endPodAntiAffinity()
        .build();
  }
}
