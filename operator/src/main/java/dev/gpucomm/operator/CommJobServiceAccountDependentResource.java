package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** ServiceAccount {@code <job>-reporter}: the identity of the job's ranks. */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobServiceAccountDependentResource
    extends CRUDKubernetesDependentResource<ServiceAccount, CommJob> {

  public CommJobServiceAccountDependentResource() {
    super(ServiceAccount.class);
  }

  @Override
  protected ServiceAccount desired(CommJob job, Context<CommJob> context) {
    return new ServiceAccountBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, JobNames.of(job).reporter()))
        .build();
  }
}
