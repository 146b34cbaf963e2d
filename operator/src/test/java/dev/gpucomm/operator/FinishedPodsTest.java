package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CleanPodPolicy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which pods of a finished job stay, when a sidecar keeps a finished rank's pod Running. */
class FinishedPodsTest {
  @Test
  void aPodThatASidecarKeepsRunningGoesThoughItsRankFailed() {
    // it would hold its node's GPUs until its activeDeadlineSeconds; its error is in the status
    Pod failedRank = SidecarPods.runningAfterExit("job-0", 1, "rank 0 failed");
    Pod hungRank =
        new PodBuilder()
            .withNewMetadata()
            .withName("job-1")
            .endMetadata()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build();
    JobObservation observation =
        new JobObservation(
            Map.of(0, failedRank, 1, hungRank),
            Optional.empty(),
            Optional.empty(),
            0,
            0,
            List.of());
    JobOutcome failed = new JobOutcome.Failed(Reasons.RANK_FAILED, "pod job-0 failed");

    assertThat(FinishedPods.kept(CleanPodPolicy.RUNNING, failed, observation)).isEmpty();
    assertThat(FinishedPods.kept(CleanPodPolicy.ALL, failed, observation)).isEmpty();
    assertThat(FinishedPods.kept(CleanPodPolicy.NONE, failed, observation))
        .containsExactlyInAnyOrder(failedRank, hungRank);
  }

  @Test
  void aFailedPodStaysForItsLogsUnderRunningAndAll() {
    Pod failedRank = SidecarPods.runningAfterExit("job-0", 1, "rank 0 failed");
    failedRank.getStatus().setPhase("Failed"); // its sidecar ended too
    Pod succeededRank = SidecarPods.runningAfterExit("job-1", 0, "");
    succeededRank.getStatus().setPhase("Succeeded");
    JobObservation observation =
        new JobObservation(
            Map.of(0, failedRank, 1, succeededRank),
            Optional.empty(),
            Optional.empty(),
            0,
            0,
            List.of());
    JobOutcome failed = new JobOutcome.Failed(Reasons.RANK_FAILED, "pod job-0 failed");

    assertThat(FinishedPods.kept(CleanPodPolicy.RUNNING, failed, observation))
        .containsExactlyInAnyOrder(failedRank, succeededRank);
    assertThat(FinishedPods.kept(CleanPodPolicy.ALL, failed, observation))
        .containsExactly(failedRank);
  }
}
