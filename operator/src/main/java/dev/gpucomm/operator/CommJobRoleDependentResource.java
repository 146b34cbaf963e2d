package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.List;

/**
 * Role {@code <job>-reporter}: get, update and patch of the one ConfigMap {@code <job>-results},
 * nothing else, so that a rank can publish its report but touch no other object.
 */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobRoleDependentResource extends CRUDKubernetesDependentResource<Role, CommJob> {
  public static final List<String> VERBS = List.of("get", "update", "patch");

  public CommJobRoleDependentResource() {
    super(Role.class);
  }

  @Override
  protected Role desired(CommJob job, Context<CommJob> context) {
    JobNames names = JobNames.of(job);
    return new RoleBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, names.reporter()))
        .withRules(
            new PolicyRuleBuilder()
                .withApiGroups("")
                .withResources("configmaps")
                .withResourceNames(names.resultsConfigMap())
                .withVerbs(VERBS)
                .build())
        .build();
  }
}
