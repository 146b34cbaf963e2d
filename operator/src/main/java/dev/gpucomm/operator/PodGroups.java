package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.GangScheduler;
import dev.gpucomm.api.v1alpha1.GangSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The PodGroup of a gang-scheduled job (spec.gang) and the marks that put its pods in it: the
 * scheduler places all {@code minMember} pods at once or none, so a job never holds some GPUs while
 * waiting for the rest.
 *
 * <p>PodGroups are another project's API, installed only where that scheduler runs: they are
 * created through Fabric8's generic resources, without an informer that would fail on clusters
 * without the CRD. A job whose scheduler's CRD is missing fails as Unschedulable, naming it.
 */
final class PodGroups {
  /** Annotation by which Volcano finds a pod's PodGroup. */
  static final String VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name";

  /** Label by which the coscheduling plugin finds a pod's PodGroup. */
  static final String COSCHEDULING_GROUP_LABEL = "scheduling.x-k8s.io/pod-group";

  static final ResourceDefinitionContext VOLCANO =
      new ResourceDefinitionContext.Builder()
          .withGroup("scheduling.volcano.sh")
          .withVersion("v1beta1")
          .withKind("PodGroup")
          .withPlural("podgroups")
          .withNamespaced(true)
          .build();

  static final ResourceDefinitionContext COSCHEDULING =
      new ResourceDefinitionContext.Builder()
          .withGroup("scheduling.x-k8s.io")
          .withVersion("v1alpha1")
          .withKind("PodGroup")
          .withPlural("podgroups")
          .withNamespaced(true)
          .build();

  /** The phase of a Volcano PodGroup its queue has not admitted. */
  private static final String VOLCANO_PENDING = "Pending";

  private PodGroups() {}

  static ResourceDefinitionContext api(GangScheduler scheduler) {
    return switch (scheduler) {
      case VOLCANO -> VOLCANO;
      case COSCHEDULING -> COSCHEDULING;
    };
  }

  /**
   * The PodGroup {@code job} needs, named after it, with minMember = its pod count and minResources
   * = what those pods request together: without it, a queue admits a gang it has no room for, which
   * then waits as Unschedulable inside the queue instead of waiting its turn before it.
   */
  static GenericKubernetesResource desired(CommJob job, JobLayout layout, List<Pod> pods) {
    GangSpec gang = job.getSpec().getGang();
    ResourceDefinitionContext api = api(gang.getScheduler());
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("minMember", layout.podCount());
    Map<String, String> minResources = new TreeMap<>();
    PodRequests.total(pods).forEach((name, amount) -> minResources.put(name, amount.toString()));
    spec.put("minResources", minResources);
    if (gang.getScheduler() == GangScheduler.VOLCANO && gang.getQueue() != null) {
      spec.put("queue", gang.getQueue());
    }
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(api.getGroup() + "/" + api.getVersion())
        .withKind(api.getKind())
        .withMetadata(JobOwnedObjects.metadata(job, job.getMetadata().getName()))
        .addToAdditionalProperties("spec", spec)
        .build();
  }

  /** What {@link #ensure} found. */
  sealed interface Group {
    /** The job's own PodGroup exists, created now or before. */
    record Ready() implements Group {}

    /** A PodGroup of the job's name that another CommJob owns: a deleted namesake's, say. */
    record Foreign() implements Group {}

    /** A group the job cannot use, for a reason no wait changes; {@code message} says it. */
    sealed interface Unusable extends Group {
      String message();
    }

    /**
     * A PodGroup of the job's name that no CommJob controls (made by hand, or by another kind of
     * job): its minMember is not the job's, and it will not go away by itself.
     */
    record Taken(String message) implements Unusable {}

    /** The cluster does not serve the scheduler's PodGroup kind: its scheduler is not there. */
    record NoSuchKind(String message) implements Unusable {}
  }

  /**
   * The PodGroup of the job's name as the API server has it now; empty when there is none, or when
   * the cluster serves no PodGroups of the job's scheduler.
   */
  static Optional<GenericKubernetesResource> read(KubernetesClient client, CommJob job) {
    return Optional.ofNullable(resource(client, job).get());
  }

  /**
   * Why the job's pods wait for their turn, when {@code podGroup} is the job's own and its queue
   * has not admitted it. Volcano keeps such a group Pending and marks its pods unschedulable ("pod
   * group is not ready"), whether the queue is full or the cluster lacks the room just now: the
   * gang waits its turn, as a Kueue workload does. The coscheduling plugin queues nothing: a group
   * of its that cannot be placed is unschedulable.
   */
  static Optional<String> queueHold(Optional<GenericKubernetesResource> podGroup, CommJob job) {
    GangSpec gang = job.getSpec() == null ? null : job.getSpec().getGang();
    if (gang == null || gang.getScheduler() != GangScheduler.VOLCANO) {
      return Optional.empty();
    }
    if (podGroup.isEmpty() || !(whose(podGroup.get(), job, VOLCANO) instanceof Group.Ready)) {
      // a group gone for a moment (deleted, its CRD reinstalled) releases nothing: a gang its
      // queue held stays held until its own group says otherwise
      return SchedulingHold.heldByItsQueue(job.getStatus())
          ? Optional.of(
              "PodGroup %s of the gang Volcano's queue held is not there to read; the job stays"
                      .formatted(job.getMetadata().getName())
                  + " queued until it is")
          : Optional.empty();
    }
    Map<String, Object> status = map(podGroup.get().getAdditionalProperties().get("status"));
    if (!VOLCANO_PENDING.equals(status.get("phase"))) {
      return Optional.empty();
    }
    String why =
        (status.get("conditions") instanceof List<?> conditions ? conditions : List.of())
            .stream()
                .map(PodGroups::map)
                .filter(condition -> "Unschedulable".equals(condition.get("type")))
                .map(condition -> condition.get("message"))
                .filter(message -> message instanceof String text && !text.isBlank())
                .map(message -> ": " + PodFailureDescriber.lastLine((String) message))
                .findFirst()
                .orElse("");
    return Optional.of(
        "Volcano's queue %s has not admitted PodGroup %s yet (phase Pending)%s"
            .formatted(
                spec(podGroup.get()).get("queue") instanceof String queue ? queue : "default",
                podGroup.get().getMetadata().getName(),
                why));
  }

  /**
   * Creates the job's PodGroup, for {@code pods} (built only when needed), unless it exists: {@code
   * existing}, as {@link #read} found it in this reconciliation. Until the job starts, its own
   * group is brought up to date: a job suspended before it ran, or while it ran, may have its spec
   * changed before it resumes. Once started, its pods are fixed, and so is its group.
   */
  static Group ensure(
      KubernetesClient client,
      CommJob job,
      JobLayout layout,
      Supplier<List<Pod>> pods,
      boolean started,
      Optional<GenericKubernetesResource> found) {
    ResourceDefinitionContext api = api(job.getSpec().getGang().getScheduler());
    var resource = resource(client, job);
    if (found.isPresent()) {
      GenericKubernetesResource existing = found.get();
      Group group = whose(existing, job, api);
      if (group instanceof Group.Ready && !started) {
        Map<String, Object> wanted = spec(desired(job, layout, pods.get()));
        Map<String, Object> present = spec(existing);
        if (!wanted.entrySet().stream()
            .allMatch(e -> Objects.equals(present.get(e.getKey()), e.getValue()))) {
          // only the fields the operator sets: a scheduler's defaults stay as they are
          Map<String, Object> merged = new LinkedHashMap<>(present);
          merged.putAll(wanted);
          resource.edit(
              podGroup -> {
                podGroup.setAdditionalProperty("spec", merged);
                return podGroup;
              });
        }
      }
      return group;
    }
    GenericKubernetesResource podGroup = desired(job, layout, pods.get());
    try {
      resource.create(podGroup);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return new Group.NoSuchKind(
            "spec.gang.scheduler %s: the cluster serves no %s of %s/%s; install the scheduler or"
                    .formatted(
                        job.getSpec().getGang().getScheduler().wireName(),
                        api.getKind(),
                        api.getGroup(),
                        api.getVersion())
                + " leave out spec.gang");
      }
      throw e;
    }
    return new Group.Ready();
  }

  /**
   * An existing PodGroup of the job's name: the job's own, a namesake's awaiting the garbage
   * collector (adopted, it would be removed under the job), or another owner's, which the job's
   * pods must not join.
   */
  private static Group whose(
      GenericKubernetesResource existing, CommJob job, ResourceDefinitionContext api) {
    Optional<OwnerReference> controller = ForeignObjects.controller(existing);
    if (controller.isPresent()
        && Objects.equals(controller.get().getUid(), job.getMetadata().getUid())) {
      return new Group.Ready();
    }
    if (controller.isPresent()
        && HasMetadata.getKind(CommJob.class).equals(controller.get().getKind())) {
      return new Group.Foreign();
    }
    return new Group.Taken(
        "spec.gang: a %s named %s exists and is not this job's (%s); delete it or give the job"
                .formatted(
                    api.getKind(),
                    existing.getMetadata().getName(),
                    ForeignObjects.controlledBy(controller))
            + " another name");
  }

  private static Map<String, Object> spec(GenericKubernetesResource podGroup) {
    return map(podGroup.getAdditionalProperties().get("spec"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static Resource<GenericKubernetesResource> resource(
      KubernetesClient client, CommJob job) {
    return client
        .genericKubernetesResources(api(job.getSpec().getGang().getScheduler()))
        .inNamespace(job.getMetadata().getNamespace())
        .withName(job.getMetadata().getName());
  }

  /** Marks {@code pod} as a member of its job's PodGroup and names the gang scheduler. */
  static void joinGang(Pod pod, CommJob job) {
    GangSpec gang = job.getSpec().getGang();
    if (gang == null || gang.getScheduler() == null) {
      return;
    }
    String group = job.getMetadata().getName();
    pod.getSpec()
        .setSchedulerName(
            Objects.requireNonNullElse(
                gang.getSchedulerName(), gang.getScheduler().defaultSchedulerName()));
    switch (gang.getScheduler()) {
      case VOLCANO -> {
        Map<String, String> annotations =
            new HashMap<>(
                Objects.requireNonNullElseGet(pod.getMetadata().getAnnotations(), Map::of));
        annotations.put(VOLCANO_GROUP_ANNOTATION, group);
        pod.getMetadata().setAnnotations(annotations);
      }
      case COSCHEDULING -> {
        Map<String, String> labels =
            new HashMap<>(Objects.requireNonNullElseGet(pod.getMetadata().getLabels(), Map::of));
        labels.put(COSCHEDULING_GROUP_LABEL, group);
        pod.getMetadata().setLabels(labels);
      }
    }
  }
}
