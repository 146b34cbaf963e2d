package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * An object that holds a name the operator needs for a job (its {@code <job>-spec} ConfigMap, its
 * Service) and that no CommJob controls: made by hand, or by another tool. Unlike a deleted
 * namesake's objects, which the garbage collector removes, it never goes away by itself.
 */
final class ForeignObjects {
  private ForeignObjects() {}

  /** The kinds of object the operator makes for a job, each with the names it gives them. */
  private record Made(ResourceDefinitionContext api, String kind, List<String> names) {}

  private static ResourceDefinitionContext api(String group, String plural) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion("v1")
        .withPlural(plural)
        .withNamespaced(true)
        .build();
  }

  /**
   * Why the job cannot be made: the first of its objects' names that an object no CommJob controls
   * holds. Empty where a CommJob controls each (this one, whose cache lags, or a deleted
   * namesake's, which the garbage collector removes) or none is there: a retry settles those.
   */
  static Optional<String> find(KubernetesClient client, CommJob job, JobLayout layout) {
    JobNames names = JobNames.of(job);
    List<String> pods = IntStream.range(0, layout.podCount()).mapToObj(names::pod).toList();
    List<Made> made =
        List.of(
            new Made(
                api("", "configmaps"),
                "ConfigMap",
                List.of(names.specConfigMap(), names.resultsConfigMap())),
            new Made(api("", "services"), "Service", List.of(names.service())),
            new Made(api("", "serviceaccounts"), "ServiceAccount", List.of(names.reporter())),
            new Made(api("rbac.authorization.k8s.io", "roles"), "Role", List.of(names.reporter())),
            new Made(
                api("rbac.authorization.k8s.io", "rolebindings"),
                "RoleBinding",
                List.of(names.reporter())),
            new Made(api("", "pods"), "Pod", pods));
    for (Made kind : made) {
      for (String name : kind.names()) {
        Optional<String> foreign = foreign(client, job, kind, name);
        if (foreign.isPresent()) {
          return foreign;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> foreign(
      KubernetesClient client, CommJob job, Made kind, String name) {
    GenericKubernetesResource existing;
    try {
      existing =
          client
              .genericKubernetesResources(kind.api())
              .inNamespace(job.getMetadata().getNamespace())
              .withName(name)
              .get();
    } catch (KubernetesClientException e) {
      return Optional.empty(); // not readable now: the retry will say more
    }
    if (existing == null) {
      return Optional.empty();
    }
    Optional<OwnerReference> controller = controller(existing);
    if (controller.isPresent()
        && HasMetadata.getKind(CommJob.class).equals(controller.get().getKind())) {
      return Optional.empty();
    }
    return Optional.of(
        "%s %s exists and is not this job's (%s); delete it or give the job another name"
            .formatted(kind.kind(), name, controlledBy(controller)));
  }

  /** The object's controller, if it has one. */
  static Optional<OwnerReference> controller(HasMetadata object) {
    return Objects.requireNonNullElse(
            object.getMetadata().getOwnerReferences(), List.<OwnerReference>of())
        .stream()
        .filter(owner -> Boolean.TRUE.equals(owner.getController()))
        .findFirst();
  }

  /** "controlled by Kind name", or "controlled by no object". */
  static String controlledBy(Optional<OwnerReference> controller) {
    return controller
        .map(owner -> "controlled by " + owner.getKind() + " " + owner.getName())
        .orElse("controlled by no object");
  }
}
