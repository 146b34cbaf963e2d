package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * Reconcile precondition of the spec ConfigMap: while a job is suspended, or restarting after a
 * failure, it is deleted, and with it the pods that depend on it. The next run starts afresh from
 * the spec as it is then: unsuspended, with the nodeSelector or tolerations a queue set while it
 * waited.
 */
public class RunWantedCondition implements Condition<Object, CommJob> {
  @Override
  public boolean isMet(
      DependentResource<Object, CommJob> dependentResource,
      CommJob primary,
      Context<CommJob> context) {
    JobPlan plan =
        context
            .managedWorkflowAndDependentResourceContext()
            .getMandatory(JobPlan.class, JobPlan.class);
    return !(plan.outcome() instanceof JobOutcome.Suspended
        || plan.outcome() instanceof JobOutcome.Restarting);
  }
}
