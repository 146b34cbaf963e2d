package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.UnreadablePodTemplate;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What exists of a job in the operator's caches: its pods by index and its two ConfigMaps.
 * Everything the operator decides is derived from this and the CommJob, so a restarted operator
 * reaches the same decisions.
 *
 * <p>Objects that a deleted CommJob of the same name owned (its UID, not this one's) are not this
 * job's, though they carry its name and labels until the garbage collector removes them: they are
 * only counted, in {@code predecessorPods} and {@code predecessorConfigMaps}. Pods of this job that
 * are being deleted (those of a suspended run, say, still stopping) are gone for every decision and
 * only counted, in {@code terminatingPods}: a new run's pods cannot be created under their names
 * until they are gone.
 *
 * <p>{@code gangQueue} is read from the API server, not a cache (PodGroups are another project's
 * kind, watched by no informer): it says why, when the gang scheduler's queue has not yet admitted
 * the job's PodGroup. {@code nodeProvisioning} is read from the API server too, and only when
 * asked: what a node autoscaler says of pods the scheduler cannot place.
 */
public record JobObservation(
    Map<Integer, Pod> podsByIndex,
    Optional<ConfigMap> specConfigMap,
    Optional<ConfigMap> results,
    int predecessorPods,
    int predecessorConfigMaps,
    List<Pod> terminatingPods,
    Optional<String> gangQueue,
    NodeProvisioning nodeProvisioning) {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** What the caches hold of a job without a gang queue's word. */
  public JobObservation(
      Map<Integer, Pod> podsByIndex,
      Optional<ConfigMap> specConfigMap,
      Optional<ConfigMap> results,
      int predecessorPods,
      int predecessorConfigMaps,
      List<Pod> terminatingPods) {
    this(
        podsByIndex,
        specConfigMap,
        results,
        predecessorPods,
        predecessorConfigMaps,
        terminatingPods,
        Optional.empty(),
        NodeProvisioning.unknown());
  }

  /** This observation with what the gang scheduler's queue says of the job's PodGroup. */
  public JobObservation withGangQueue(Optional<String> queue) {
    return new JobObservation(
        podsByIndex,
        specConfigMap,
        results,
        predecessorPods,
        predecessorConfigMaps,
        terminatingPods,
        queue,
        nodeProvisioning);
  }

  /** This observation with what a node autoscaler says of the job's pods. */
  public JobObservation withNodeProvisioning(NodeProvisioning provisioning) {
    return new JobObservation(
        podsByIndex,
        specConfigMap,
        results,
        predecessorPods,
        predecessorConfigMaps,
        terminatingPods,
        gangQueue,
        provisioning);
  }

  public static JobObservation of(CommJob job, Context<CommJob> context) {
    JobNames names = JobNames.of(job);
    String uid = job.getMetadata().getUid();
    int predecessorPods = 0;
    int predecessorConfigMaps = 0;
    List<Pod> terminatingPods = new ArrayList<>();
    Map<Integer, Pod> pods = new TreeMap<>();
    for (Pod pod : context.getSecondaryResources(Pod.class)) {
      if (ownedByAnother(pod, uid)) {
        predecessorPods++;
        continue;
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        terminatingPods.add(pod);
        continue;
      }
      String index = pod.getMetadata().getLabels().get(JobNames.POD_INDEX_LABEL);
      if (index != null && index.matches("\\d{1,6}")) {
        pods.put(Integer.parseInt(index), pod);
      }
    }
    Optional<ConfigMap> spec = Optional.empty();
    Optional<ConfigMap> results = Optional.empty();
    for (ConfigMap configMap : context.getSecondaryResources(ConfigMap.class)) {
      String name = configMap.getMetadata().getName();
      if (!name.equals(names.specConfigMap()) && !name.equals(names.resultsConfigMap())) {
        continue;
      }
      if (ownedByAnother(configMap, uid)) {
        predecessorConfigMaps++;
      } else if (name.equals(names.specConfigMap())) {
        spec = Optional.of(configMap);
      } else {
        results = Optional.of(configMap);
      }
    }
    return new JobObservation(
        pods, spec, results, predecessorPods, predecessorConfigMaps, terminatingPods);
  }

  /** How many of a deleted namesake's objects are still here. */
  public int predecessorObjects() {
    return predecessorPods + predecessorConfigMaps;
  }

  /** "1 pod and 2 ConfigMaps", for messages. */
  public String predecessorsInWords() {
    List<String> kinds = new ArrayList<>();
    if (predecessorPods > 0) {
      kinds.add(predecessorPods + (predecessorPods == 1 ? " pod" : " pods"));
    }
    if (predecessorConfigMaps > 0) {
      kinds.add(
          predecessorConfigMaps + (predecessorConfigMaps == 1 ? " ConfigMap" : " ConfigMaps"));
    }
    return String.join(" and ", kinds);
  }

  /** Whether {@code object}'s controller is a CommJob other than the one of {@code uid}. */
  static boolean ownedByAnother(HasMetadata object, String uid) {
    if (uid == null || object.getMetadata().getOwnerReferences() == null) {
      return false;
    }
    return object.getMetadata().getOwnerReferences().stream()
        .filter(owner -> Boolean.TRUE.equals(owner.getController()))
        .filter(owner -> HasMetadata.getKind(CommJob.class).equals(owner.getKind()))
        .anyMatch(owner -> owner.getUid() != null && !owner.getUid().equals(uid));
  }

  /** "{0=Running, 1=Pending}", for debug logs. */
  public Map<Integer, String> podPhases() {
    Map<Integer, String> phases = new TreeMap<>();
    podsByIndex.forEach((index, pod) -> phases.put(index, PodPhases.phaseOf(pod)));
    return phases;
  }

  /** The job has started once its spec ConfigMap exists: from then on its spec is frozen. */
  public boolean started() {
    return specConfigMap.isPresent();
  }

  /** Whether anything of a run is still here: its spec ConfigMap or a pod, terminating or not. */
  public boolean holdsRunObjects() {
    return started() || !podsByIndex.isEmpty() || !terminatingPods.isEmpty();
  }

  /**
   * {@code live} with the spec the job started with (job.json of its spec ConfigMap): a spec edited
   * after the start is not applied, except its lifecycle fields, which apply at once. Before the
   * start, {@code live} itself.
   */
  public CommJob frozenJob(CommJob live) {
    Optional<String> json =
        specConfigMap.map(cm -> cm.getData()).map(data -> data.get(PodTemplateFactory.SPEC_FILE));
    if (json.isEmpty()) {
      return live;
    }
    CommJobSpec frozen;
    try {
      frozen = SERIALIZATION.unmarshal(json.get(), CommJob.class).getSpec();
    } catch (RuntimeException unreadable) {
      // someone edited the ConfigMap: the live spec is the best remaining record
      return live;
    }
    if (frozen == null || frozen.getTemplate() instanceof UnreadablePodTemplate) {
      return live;
    }
    if (live.getSpec() != null) {
      LifecycleFields.copy(live.getSpec(), frozen);
    }
    CommJob job = new CommJob();
    job.setMetadata(live.getMetadata());
    job.setSpec(frozen);
    job.setStatus(live.getStatus());
    return job;
  }

  /** The generation whose spec the job runs, from the spec ConfigMap. */
  public Optional<Long> startedGeneration() {
    return specConfigMap
        .map(cm -> cm.getMetadata().getAnnotations().get(JobNames.SPEC_GENERATION_ANNOTATION))
        .filter(text -> text.matches("\\d+"))
        .map(Long::parseLong);
  }

  /** When the job's pods were created: the recorded startTime, else its spec ConfigMap's. */
  public Optional<Instant> startTime(CommJob job) {
    return startTime(job.getStatus());
  }

  /** When the run's pods were created: {@code status}'s startTime, else the spec ConfigMap's. */
  public Optional<Instant> startTime(CommJobStatus status) {
    if (status != null && status.getStartTime() != null) {
      return Optional.of(Instant.parse(status.getStartTime()));
    }
    return specConfigMap
        .map(cm -> cm.getMetadata().getCreationTimestamp())
        .filter(text -> text != null && !text.isEmpty())
        .map(Instant::parse);
  }

  /**
   * When all the job's pods were first running, as the status records it. Where a lost status patch
   * left it unrecorded, the next reconciliation records it anew, a little later.
   */
  public Optional<Instant> runningTime(CommJob job) {
    return Optional.ofNullable(job.getStatus())
        .map(CommJobStatus::getRunningTime)
        .filter(text -> !text.isEmpty())
        .map(Instant::parse);
  }

  /** Whether every one of the job's {@code podCount} pods is running or has finished. */
  public boolean allPodsRan(int podCount) {
    for (int index = 0; index < podCount; index++) {
      Pod pod = podsByIndex.get(index);
      String phase = pod == null ? "Pending" : PodPhases.phaseOf(pod);
      if (phase.equals("Pending") || phase.equals("Unknown")) {
        return false;
      }
    }
    return true;
  }
}
