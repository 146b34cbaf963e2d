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
  void aFailedRanksPodStaysForItsLogsThoughASidecarKeepsItRunning() {
    Pod failedRank = pod("job-0", "Running", 1);
    Pod hungRank = pod("job-1", "Running", null);
    JobObservation observation =
        new JobObservation(
            Map.of(0, failedRank, 1, hungRank), Optional.empty(), Optional.empty(), 0, List.of());
    JobOutcome failed = new JobOutcome.Failed(Reasons.RANK_FAILED, "pod job-0 failed");

    assertThat(FinishedPods.kept(CleanPodPolicy.RUNNING, failed, observation))
        .containsExactly(failedRank);
    assertThat(FinishedPods.kept(CleanPodPolicy.ALL, failed, observation))
        .containsExactly(failedRank);
  }

  /** A pod of {@code phase}; its gpucomm container exited with {@code exitCode}, or still runs. */
  private static Pod pod(String name, String phase, Integer exitCode) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewStatus()
            .withPhase(phase)
            .endStatus();
    if (exitCode != null) {
      pod.editStatus()
          .addNewContainerStatus()
          .withName("gpucomm")
          .withNewState()
          .withNewTerminated()
          .withExitCode(exitCode)
          .endTerminated()
          .endState()
          .endContainerStatus()
          .addNewContainerStatus()
          .withName("istio-proxy")
          .withNewState()
          .withNewRunning()
          .endRunning()
          .endState()
          .endContainerStatus()
          .endStatus();
    }
    return pod.build();
  }
}
