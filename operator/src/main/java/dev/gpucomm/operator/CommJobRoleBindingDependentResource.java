package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** RoleBinding {@code <job>-reporter}: binds the job's Role to its ServiceAccount. */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobRoleBindingDependentResource
    extends CRUDKubernetesDependentResource<RoleBinding, CommJob> {

  public CommJobRoleBindingDependentResource() {
    super(RoleBinding.class);
  }

  @Override
  protected RoleBinding desired(CommJob job, Context<CommJob> context) {
    JobNames names = JobNames.of(job);
    return new RoleBindingBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, names.reporter()))
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName(names.reporter())
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName(names.reporter())
        .withNamespace(job.getMetadata().getNamespace())
        .endSubject()
        .build();
  }
}
