package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.KubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The job's pods {@code <job>-0 .. <job>-(podCount-1)}. While the job runs, every pod is wanted
 * (missing ones are created, none are ever updated: a rank cannot be restarted in place); while it
 * is suspended or restarting, none is. Once it has finished, {@link FinishedPods} keeps those its
 * cleanPodPolicy keeps; the rest are deleted, so that no rank hangs waiting for a dead peer.
 */
@KubernetesDependent(informer = @Informer(labelSelector = CommJob.JOB_LABEL))
public class CommJobPodsDependentResource extends KubernetesDependentResource<Pod, CommJob>
    implements KubernetesBulkDependentResource<Pod, CommJob>,
        Creator<Pod, CommJob>,
        GarbageCollected<CommJob> {
  @Inject PodTemplateFactory podTemplateFactory;

  public CommJobPodsDependentResource() {
    super(Pod.class);
  }

  @Override
  public Map<ResourceID, Pod> desiredResources(CommJob primary, Context<CommJob> context) {
    JobPlan plan =
        context
            .managedWorkflowAndDependentResourceContext()
            .getMandatory(JobPlan.class, JobPlan.class);
    return wanted(plan, () -> podTemplateFactory.buildAll(plan.job(), plan.layout().orElseThrow()));
  }

  /**
   * The pods {@code plan} wants, by name: {@code runPods} while the job runs, those its
   * cleanPodPolicy keeps once it has finished, and none while it is suspended or restarting. Pods
   * already terminating are left to go rather than deleted again.
   */
  static Map<ResourceID, Pod> wanted(JobPlan plan, Supplier<List<Pod>> runPods) {
    Map<ResourceID, Pod> desired = new HashMap<>();
    switch (plan.outcome()) {
      case JobOutcome.InProgress inProgress -> {
        for (Pod pod : runPods.get()) {
          PodGroups.joinGang(pod, plan.job());
          desired.put(ResourceID.fromResource(pod), pod);
        }
      }
      case JobOutcome.Suspended _, JobOutcome.Restarting _ -> {}
      case JobOutcome.Succeeded _, JobOutcome.Failed _ ->
          FinishedPods.kept(
                  plan.job().getSpec().getCleanPodPolicy(), plan.outcome(), plan.observation())
              .forEach(pod -> keep(desired, pod));
    }
    if (!(plan.outcome() instanceof JobOutcome.InProgress)) {
      // a pod already terminating is on its way: deleting it again on every reconciliation until
      // it is gone would only repeat a DELETE per pod
      plan.observation().terminatingPods().forEach(pod -> keep(desired, pod));
    }
    return desired;
  }

  private static void keep(Map<ResourceID, Pod> desired, Pod existing) {
    desired.put(ResourceID.fromResource(existing), existing);
  }

  /**
   * Deletes {@code pod} unless it is already terminating. While the job is suspended or restarting
   * the workflow deletes the pods on every reconciliation (they depend on the spec ConfigMap, which
   * the run does not want), and a pod that drains for minutes would otherwise be deleted again each
   * time.
   */
  @Override
  public void deleteTargetResource(
      CommJob primary, Pod pod, ResourceID key, Context<CommJob> context) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    super.deleteTargetResource(primary, pod, key, context);
  }

  /** Pods are never updated: an existing pod always matches. */
  @Override
  public Result<Pod> match(Pod actual, Pod desired, CommJob primary, Context<CommJob> context) {
    return Result.computed(true, desired);
  }
}
