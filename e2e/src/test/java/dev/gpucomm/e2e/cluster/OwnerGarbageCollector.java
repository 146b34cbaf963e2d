package dev.gpucomm.e2e.cluster;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of Kubernetes' garbage collector that a deleted CommJob needs, which the mock API server
 * lacks: when a CommJob goes, every object whose ownerReferences name its uid is deleted
 * (background propagation).
 */
final class OwnerGarbageCollector implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnerGarbageCollector.class);

  private final KubernetesClient client;
  private final List<Function<String, List<? extends HasMetadata>>> kinds;
  private SharedIndexInformer<CommJob> informer;

  OwnerGarbageCollector(KubernetesClient client) {
    this.client = client;
    this.kinds =
        List.of(
            ns -> client.pods().inNamespace(ns).list().getItems(),
            ns -> client.configMaps().inNamespace(ns).list().getItems(),
            ns -> client.services().inNamespace(ns).list().getItems(),
            ns -> client.serviceAccounts().inNamespace(ns).list().getItems(),
            ns -> client.rbac().roles().inNamespace(ns).list().getItems(),
            ns -> client.rbac().roleBindings().inNamespace(ns).list().getItems(),
            ns -> client.secrets().inNamespace(ns).list().getItems());
  }

  void start() {
    informer =
        client
            .resources(CommJob.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(CommJob job) {}

                  @Override
                  public void onUpdate(CommJob before, CommJob job) {}

                  @Override
                  public void onDelete(CommJob job, boolean finalStateUnknown) {
                    // the job is gone, so its objects are among the namespace's orphans
                    collectOrphans(job.getMetadata().getNamespace());
                  }
                },
                0);
  }

  /**
   * Deletes every object of {@code namespace} owned by a CommJob that no longer exists, as
   * Kubernetes' collector does from its graph whatever events it saw: a watch that drops a delete
   * event (the informer above) would otherwise leave the job's objects behind. Objects are listed
   * before the jobs, so an object whose job is created meanwhile cannot look orphaned.
   */
  void collectOrphans(String namespace) {
    List<HasMetadata> objects = new ArrayList<>();
    for (var kind : kinds) {
      objects.addAll(kind.apply(namespace));
    }
    Set<String> jobs =
        client.resources(CommJob.class).inNamespace(namespace).list().getItems().stream()
            .map(job -> job.getMetadata().getUid())
            .collect(Collectors.toSet());
    for (HasMetadata object : objects) {
      Optional.ofNullable(object.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
          .filter(
              owner ->
                  HasMetadata.getKind(CommJob.class).equals(owner.getKind())
                      && !jobs.contains(owner.getUid()))
          .findFirst()
          .ifPresent(
              owner -> {
                LOG.info(
                    "collecting orphan {} {}/{} (owner {} gone)",
                    object.getKind(),
                    namespace,
                    object.getMetadata().getName(),
                    owner.getUid());
                client.resource(object).inNamespace(namespace).delete();
              });
    }
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
