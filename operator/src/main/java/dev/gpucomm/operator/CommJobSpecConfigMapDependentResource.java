package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import java.util.Map;

/**
 * ConfigMap {@code <job>-spec}: the job as the ranks read it ({@code job.json}, mounted at
 * /etc/gpucomm). Created once and never updated: a running job keeps the spec it started with.
 */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobSpecConfigMapDependentResource
    extends KubernetesDependentResource<ConfigMap, CommJob>
    implements Creator<ConfigMap, CommJob>, GarbageCollected<CommJob> {
  /** Name of the ConfigMap informer, shared with the results ConfigMap. */
  public static final String NAME = "spec-configmap";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  public CommJobSpecConfigMapDependentResource() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(CommJob job, Context<CommJob> context) {
    ObjectMeta metadata = JobOwnedObjects.metadata(job, JobNames.of(job).specConfigMap());
    metadata
        .getAnnotations()
        .put(
            JobNames.SPEC_GENERATION_ANNOTATION, String.valueOf(job.getMetadata().getGeneration()));
    return new ConfigMapBuilder()
        .withMetadata(metadata)
        .withData(Map.of(PodTemplateFactory.SPEC_FILE, jobJson(job)))
        .build();
  }

  /** The CommJob as {@code gpucomm run -f} reads it: apiVersion, kind, name, namespace, spec. */
  static String jobJson(CommJob job) {
    CommJob copy = new CommJob();
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withName(job.getMetadata().getName())
            .withNamespace(job.getMetadata().getNamespace())
            .build());
    copy.setSpec(job.getSpec());
    copy.setStatus(null);
    return SERIALIZATION.asJson(copy);
  }
}
