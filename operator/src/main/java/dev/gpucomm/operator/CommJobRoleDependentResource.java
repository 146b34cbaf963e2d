package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Heuristic;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.List;

/**
 * Role {@code <job>-reporter}: get, update and patch of the one ConfigMap {@code <job>-results}, so
 * that rank 0 can publish its report but touch no other object; and, for the measured heuristic,
 * get of the tuning-table ConfigMap its tuningRef names.
 */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobRoleDependentResource extends CRUDKubernetesDependentResource<Role, CommJob> {
  public static final List<String> RESULTS_VERBS = List.of("get", "update", "patch");

  public CommJobRoleDependentResource() {
    super(Role.class);
  }

  @Override
  protected Role desired(CommJob live, Context<CommJob> context) {
    // the spec the job runs, which may differ from the live one after an edit
    CommJob job =
        context
            .managedWorkflowAndDependentResourceContext()
            .getMandatory(JobPlan.class, JobPlan.class)
            .job();
    JobNames names = JobNames.of(job);
    List<PolicyRule> rules = new ArrayList<>();
    rules.add(configMapRule(names.resultsConfigMap(), RESULTS_VERBS));
    Heuristic heuristic = job.getSpec().getHeuristic();
    if (heuristic != null && heuristic.getTuningRef() != null) {
      rules.add(configMapRule(heuristic.getTuningRef(), List.of("get")));
    }
    return new RoleBuilder()
        .withMetadata(JobOwnedObjects.metadata(job, names.reporter()))
        .withRules(rules)
        .build();
  }

  private static PolicyRule configMapRule(String name, List<String> verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups("")
        .withResources("configmaps")
        .withResourceNames(name)
        .withVerbs(verbs)
        .build();
  }
}
