package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;

/**
 * ConfigMap {@code <job>-results}, created empty so that the ranks need only get/update/patch on it
 * (never create); rank 0 patches report.json, report.md and latency.svg in. Never updated by the
 * operator, which would erase the report.
 */
public class CommJobResultsConfigMapDependentResource
    extends KubernetesDependentResource<ConfigMap, CommJob>
    implements Creator<ConfigMap, CommJob>, GarbageCollected<CommJob> {
  public static final String REPORT_JSON = "report.json";

  public CommJobResultsConfigMapDependentResource() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(CommJob job, Context<CommJob> context) {
    return new ConfigMapBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, JobNames.of(job).resultsConfigMap()))
        .build();
  }
}
