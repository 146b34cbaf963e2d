package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Builds pod {@code <job>-<podIndex>}: one container running {@code gpucomm launch}, which starts
 * the pod's ranks as processes that share the container's IPC namespace and a memory-backed
 * /dev/shm; the job's template overlay, laid over the cluster's rank pod template, is merged in
 * last.
 */
@ApplicationScoped
public class PodTemplateFactory {
  public static final String CONTAINER_NAME = "gpucomm";
  public static final String GPU_RESOURCE = "nvidia.com/gpu";
  public static final String SHM_PATH = "/dev/shm";
  public static final String SPEC_DIR = "/etc/gpucomm";
  public static final String SPEC_FILE = "job.json";
  public static final String SHM_VOLUME = "dshm";
  public static final String SPEC_VOLUME = "job-spec";
  public static final String RENDEZVOUS_PORT_NAME = "rendezvous";
  public static final String TERMINATION_MESSAGE_POLICY = "FallbackToLogsOnError";

  public static final String ENV_JOB = "GPUCOMM_JOB";
  public static final String ENV_NAMESPACE = "GPUCOMM_NAMESPACE";
  public static final String ENV_POD_INDEX = "GPUCOMM_POD_INDEX";
  public static final String ENV_RANKS_PER_POD = "GPUCOMM_RANKS_PER_POD";
  public static final String ENV_WORLD_SIZE = "GPUCOMM_WORLD_SIZE";
  public static final String ENV_RENDEZVOUS = "GPUCOMM_RENDEZVOUS";

  /** The run the pod belongs to (its restart-attempt label), which rank 0 stamps on its report. */
  public static final String ENV_RESTART_ATTEMPT = "GPUCOMM_RESTART_ATTEMPT";

  /**
   * The run the pod's ranks belong to: the job's uid and restart attempt. The store refuses ranks
   * of another run, so a rank of a namesake job or of an earlier attempt cannot take a rank's
   * place.
   */
  public static final String ENV_RUN_ID = "GPUCOMM_RUN_ID";

  /** The node and pod a rank runs in (downward API), so that reports name a slow rank's node. */
  public static final String ENV_NODE_NAME = "GPUCOMM_NODE_NAME";

  public static final String ENV_POD_NAME = "GPUCOMM_POD_NAME";

  /** Env the operator or the launcher sets; a template may not set these. */
  public static final Set<String> RESERVED_ENV =
      Set.of(
          ENV_JOB,
          ENV_NAMESPACE,
          ENV_POD_INDEX,
          ENV_RANKS_PER_POD,
          ENV_WORLD_SIZE,
          ENV_RENDEZVOUS,
          ENV_RESTART_ATTEMPT,
          ENV_RUN_ID,
          ENV_NODE_NAME,
          ENV_POD_NAME,
          "RANK",
          "LOCAL_RANK",
          "WORLD_SIZE",
          // read by the launcher or the ranks: set in a pod they would move the report out of the
          // results ConfigMap, or change the device or the API server the ranks use
          "GPUCOMM_REPORT_DIR",
          "GPUCOMM_DEVICE",
          "GPUCOMM_KUBE_API",
          "GPUCOMM_TEST_FAIL_RANK");

  /**
   * A run cannot lose a rank and go on, so node autoscalers must not take a rank pod's node away to
   * save money while it runs: Karpenter's consolidation would, cluster-autoscaler's scale-down
   * should not (it skips pods of custom controllers by default, which a setting turns off). A
   * template may set either annotation otherwise.
   */
  static final String KARPENTER_DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";

  static final String CLUSTER_AUTOSCALER_SAFE_TO_EVICT =
      "cluster-autoscaler.kubernetes.io/safe-to-evict";

  public static final Set<String> RESERVED_MOUNT_PATHS = Set.of(SHM_PATH, SPEC_DIR);
  public static final Set<String> RESERVED_VOLUMES = Set.of(SHM_VOLUME, SPEC_VOLUME);

  private final OperatorConfig config;
  private final PodTemplateOverlay overlay;
  private final RankPodDefaults defaults;

  @Inject
  public PodTemplateFactory(OperatorConfig config, PodTemplateOverlay overlay) {
    this.config = config;
    this.overlay = overlay;
    this.defaults = RankPodDefaults.of(config);
  }

  /** The job's pods {@code <job>-0 .. <job>-(podCount-1)}, in index order. */
  public List<Pod> buildAll(CommJob job, JobLayout layout) {
    return IntStream.range(0, layout.podCount())
        .mapToObj(index -> build(job, layout, index))
        .toList();
  }

  /** The pod of {@code podIndex}, for a job whose spec {@link SpecValidator} accepted. */
  public Pod build(CommJob job, JobLayout layout, int podIndex) {
    PodTemplateSpec template = defaults.under(job.getSpec().getTemplate());
    JobNames names = JobNames.of(job);
    String namespace = job.getMetadata().getNamespace();
    Map<String, String> labels = JobNames.labelsOf(job);
    labels.put(JobNames.POD_INDEX_LABEL, Integer.toString(podIndex));
    labels.put(JobNames.RESTART_ATTEMPT_LABEL, Integer.toString(JobRestarts.made(job.getStatus())));
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(names.pod(podIndex))
            .withNamespace(namespace)
            .withOwnerReferences(JobOwnedObjects.controllerReference(job))
            .withLabels(labels)
            .withAnnotations(
                new HashMap<>(
                    Map.of(
                        JobNames.SPEC_GENERATION_ANNOTATION,
                        String.valueOf(job.getMetadata().getGeneration()),
                        KARPENTER_DO_NOT_DISRUPT,
                        "true",
                        CLUSTER_AUTOSCALER_SAFE_TO_EVICT,
                        "false")))
            .endMetadata()
            .withNewSpec()
            .withHostname(names.pod(podIndex))
            .withSubdomain(names.service())
            .withRestartPolicy("Never")
            .withActiveDeadlineSeconds(fallbackDeadlineSeconds(job, layout))
            .withServiceAccountName(names.reporter())
            .withAutomountServiceAccountToken(true)
            .withEnableServiceLinks(false)
            .withImagePullSecrets(runtimeImagePullSecrets())
            .withAffinity(RankPodPlacement.defaultAffinity(job, layout))
            .withSecurityContext(
                new PodSecurityContextBuilder()
                    .withRunAsNonRoot(true)
                    .withRunAsUser(config.runAsUser())
                    .withRunAsGroup(config.runAsUser())
                    .withFsGroup(config.runAsUser())
                    .withNewSeccompProfile()
                    .withType("RuntimeDefault")
                    .endSeccompProfile()
                    .build())
            .withContainers(container(job, layout, podIndex, template))
            .withVolumes(
                new VolumeBuilder()
                    .withName(SPEC_VOLUME)
                    .withNewConfigMap()
                    .withName(names.specConfigMap())
                    .endConfigMap()
                    .build(),
                new VolumeBuilder()
                    .withName(SHM_VOLUME)
                    .withNewEmptyDir()
                    .withMedium("Memory")
                    .withSizeLimit(new Quantity(layout.sharedMemorySize()))
                    .endEmptyDir()
                    .build())
            .endSpec()
            .build();
    overlay.apply(pod, template);
    return pod;
  }

  /** What the pods' own deadline adds to the operator's allowance. */
  static final long FALLBACK_DEADLINE_MARGIN_SECONDS = 600;

  /**
   * The deadline the kubelet enforces on each rank pod (activeDeadlineSeconds), for when no
   * operator is left to time the job out (uninstalled, or down for good): a rank hung in a
   * collective would otherwise hold its GPUs forever. It counts from the pod's own start on its
   * node, while the operator allows the job's pods spec.timeoutSeconds +
   * spec.schedulingTimeoutSeconds from their creation to all run (and the operator's scale-up
   * timeout more where a node autoscaler brings a pod's node), and spec.timeoutSeconds more from
   * then: the first pod to start may see all of that, so its deadline is the sum and a margin, and
   * with the operator running its Timeout comes first. A pod keeps the deadline it was made with: a
   * schedulingTimeoutSeconds raised later does not move it.
   */
  long fallbackDeadlineSeconds(CommJob job, JobLayout layout) {
    Integer scheduling = job.getSpec().getSchedulingTimeoutSeconds();
    long schedulingSeconds =
        scheduling != null ? scheduling : config.unschedulableTimeout().toSeconds();
    return 2L * layout.timeoutSeconds()
        + schedulingSeconds
        + config.scaleUpTimeout().toSeconds()
        + FALLBACK_DEADLINE_MARGIN_SECONDS;
  }

  private List<LocalObjectReference> runtimeImagePullSecrets() {
    return config.runtimeImagePullSecrets().orElse(List.of()).stream()
        .map(LocalObjectReference::new)
        .toList();
  }

  private static EnvVar fieldRef(String name, String fieldPath) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(fieldPath)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  private Container container(
      CommJob job, JobLayout layout, int podIndex, PodTemplateSpec template) {
    JobNames names = JobNames.of(job);
    String namespace = job.getMetadata().getNamespace();
    String rendezvous =
        "%s.%s.%s.svc:%d"
            .formatted(names.pod(0), names.service(), namespace, config.rendezvousPort());
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVar(ENV_JOB, names.job(), null));
    env.add(new EnvVar(ENV_NAMESPACE, namespace, null));
    env.add(new EnvVar(ENV_POD_INDEX, Integer.toString(podIndex), null));
    env.add(new EnvVar(ENV_RANKS_PER_POD, Integer.toString(layout.ranksPerPod()), null));
    env.add(new EnvVar(ENV_WORLD_SIZE, Integer.toString(layout.worldSize()), null));
    env.add(new EnvVar(ENV_RENDEZVOUS, rendezvous, null));
    String attempt = Integer.toString(JobRestarts.made(job.getStatus()));
    env.add(new EnvVar(ENV_RESTART_ATTEMPT, attempt, null));
    env.add(new EnvVar(ENV_RUN_ID, job.getMetadata().getUid() + "/" + attempt, null));
    env.add(fieldRef(ENV_NODE_NAME, "spec.nodeName"));
    env.add(fieldRef(ENV_POD_NAME, "metadata.name"));
    return new ContainerBuilder()
        .withName(CONTAINER_NAME)
        .withImage(config.runtimeImage())
        .withImagePullPolicy(config.runtimeImagePullPolicy())
        .withCommand("gpucomm")
        .withArgs("launch")
        .withEnv(env)
        .addNewPort()
        .withName(RENDEZVOUS_PORT_NAME)
        .withContainerPort(config.rendezvousPort())
        .withProtocol("TCP")
        .endPort()
        .withResources(RankContainerResources.of(layout, config, template))
        .withVolumeMounts(
            new VolumeMountBuilder()
                .withName(SPEC_VOLUME)
                .withMountPath(SPEC_DIR)
                .withReadOnly(true)
                .build(),
            new VolumeMountBuilder().withName(SHM_VOLUME).withMountPath(SHM_PATH).build())
        .withSecurityContext(
            new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withPrivileged(false)
                .withRunAsNonRoot(true)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .build())
        .withTerminationMessagePolicy(TERMINATION_MESSAGE_POLICY)
        .build();
  }
}
