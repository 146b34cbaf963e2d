package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Settings of the operator itself (prefix {@code gpucomm.operator}), set by the Helm chart. */
@ConfigMapping(prefix = "gpucomm.operator")
public interface OperatorConfig {

  /** Image of the rank pods when a CommJob's template names none. */
  @WithDefault("ghcr.io/gpucomm/gpucomm-runtime:latest")
  String runtimeImage();

  /** Pull policy of the runtime image when a CommJob's template names none. */
  @WithDefault("IfNotPresent")
  String runtimeImagePullPolicy();

  /**
   * Secrets the rank pods pull the runtime image with, unless a CommJob's template names its own: a
   * private registry then needs no template in every job.
   */
  Optional<List<String>> runtimeImagePullSecrets();

  /** Size of each pod's memory-backed /dev/shm when a CommJob does not set sharedMemorySize. */
  @WithDefault("8Gi")
  String defaultSharedMemorySize();

  /**
   * CPU each rank pod requests per rank when a CommJob's template names no CPU request: the pod
   * requests ranksPerPod times this.
   */
  @WithDefault(CommJobDefaults.CPU_PER_RANK)
  String cpuPerRank();

  /**
   * Memory each rank pod requests per rank when a CommJob's template names no memory request; the
   * memory limit adds the job's /dev/shm size to the request.
   */
  @WithDefault(CommJobDefaults.MEMORY_PER_RANK)
  String memoryPerRank();

  /**
   * A pod template, as base64-encoded JSON, that every rank pod's CommJob template is laid over
   * (see {@link RankPodDefaults}), with the fields a template may set: tolerations of the GPU
   * nodes' taints, a priority class, labels every job's pods need. Unset: none. One the overlay
   * cannot take stops the operator from starting.
   */
  Optional<String> rankPodTemplate();

  /** How long a pod may stay unschedulable before the job fails with reason Unschedulable. */
  @WithDefault("300s")
  Duration unschedulableTimeout();

  /**
   * How long a pod may wait for a node that a node autoscaler said is on its way (cluster-
   * autoscaler's TriggeredScaleUp, Karpenter's Nominated Events on the pod), counted from when it
   * first said so, where that ends later than the pod's scheduling timeout. Both autoscalers give
   * up on a node that has not joined after 15 minutes by default, and a GPU node publishes its GPUs
   * only once its driver and device plugin are up, minutes after it joins: hence twice that. Zero
   * reads no Events.
   */
  @WithDefault("30m")
  Duration scaleUpTimeout();

  /**
   * How long one read of a namespace's autoscaler Events serves every job of that namespace: the
   * API server keeps no cache of Events, and jobs that wait for nodes come in bursts.
   */
  @WithDefault("30s")
  Duration autoscalerEventsKept();

  /**
   * How long after a pod's ranks failed the verdict waits while another pod of the run still shows
   * Running: a node that stops answering leaves its pod Running until the node controller marks it
   * NotReady (after its grace period, 40-50 s), while its peers fail within seconds on its silence.
   * Within this wait a pod marked so is the run's disruption, not its peers' failure. Longer than
   * the cluster's node-monitor grace period and the controller's next look; zero judges at once.
   */
  @WithDefault("90s")
  Duration nodeLossGrace();

  /**
   * Whether the operator removes (deletes with no grace period) its deleted pods whose Node is gone
   * or has stopped posting status, {@link #lostPodRemovalDelay()} after their deletion: the API
   * server keeps them until the node is deleted or tainted out-of-service, and the job's next run
   * needs their names. Off, such a restart waits for the cluster's administrator, or fails as
   * Unschedulable.
   */
  @WithDefault("true")
  boolean removeLostPods();

  /**
   * How long after its deletion a pod whose node stopped answering is left before the operator
   * removes it: a kubelet that answers confirms a pod's end within seconds.
   */
  @WithDefault("30s")
  Duration lostPodRemovalDelay();

  /** TCP port of the rendezvous store that global rank 0 hosts. */
  @WithDefault("29500")
  int rendezvousPort();

  /** User and group id the rank containers run as (the runtime image's non-root user). */
  @WithDefault("1000")
  long runAsUser();

  /**
   * How often a finished job whose baseline ConfigMap is missing or unreadable looks at it again:
   * the operator does not watch ConfigMaps it does not own, and a CI pipeline may create the
   * baseline after the job. At least a second (less is taken as a second).
   */
  @WithDefault("30s")
  Duration baselineRecheckInterval();

  /** Leader election among operator replicas. */
  LeaderElection leaderElection();

  /** Leader election settings: one replica reconciles, the others wait. */
  interface LeaderElection {
    /** Whether replicas elect a leader through a Lease. */
    @WithDefault("true")
    boolean enabled();

    /** Name of the Lease. */
    @WithDefault("gpucomm-operator-leader")
    String leaseName();

    /** Namespace of the Lease; the operator's own namespace when unset. */
    Optional<String> leaseNamespace();
  }
}
