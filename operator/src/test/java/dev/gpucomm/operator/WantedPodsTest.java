package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.RestartCause;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which pods a job wants: a pod already terminating is never deleted a second time. */
class WantedPodsTest {
  private final Pod stopping = pod("job-1", "2026-01-01T00:00:00Z", "Running");
  private final Pod failedRank = pod("job-0", null, "Failed");

  @Test
  void aRestartingJobWantsNoPodButLeavesATerminatingOneToGo() {
    Map<ResourceID, Pod> wanted =
        CommJobPodsDependentResource.wanted(
            plan(new JobOutcome.Restarting(RestartCause.DISRUPTION, "restart 1 of 1", 1)),
            List::of);

    assertThat(wanted.keySet())
        .as("job-0 is deleted; job-1, already terminating, is not deleted again")
        .containsExactly(ResourceID.fromResource(stopping));
  }

  @Test
  void aFinishedJobKeepsItsFailedPodAndLeavesATerminatingOneToGo() {
    Map<ResourceID, Pod> wanted =
        CommJobPodsDependentResource.wanted(
            plan(new JobOutcome.Failed(Reasons.RANK_FAILED, "pod job-0 failed")), List::of);

    assertThat(wanted.keySet())
        .containsExactlyInAnyOrder(
            ResourceID.fromResource(failedRank), ResourceID.fromResource(stopping));
  }

  private JobPlan plan(JobOutcome outcome) {
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName("job").withNamespace("ns").build());
    CommJobSpec spec = new CommJobSpec();
    spec.setWorldSize(2);
    job.setSpec(spec);
    JobObservation observation =
        new JobObservation(
            Map.of(0, failedRank), Optional.empty(), Optional.empty(), 0, 0, List.of(stopping));
    return new JobPlan(job, observation, outcome, Optional.empty());
  }

  private static Pod pod(String name, String deletionTimestamp, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .withDeletionTimestamp(deletionTimestamp)
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }
}
