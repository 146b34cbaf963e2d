package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which of a job's deleted pods the operator removes for want of a kubelet to confirm their end.
 */
class LostPodsTest {
  private static final Instant NOW = Instant.parse("2026-11-29T03:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aDeletedPodOnALostNodeIsRemovedOnceItsDeletionIsOverdue() {
    Pod lost = deleted("job-1", NOW.minusSeconds(31), true);

    assertThat(LostPods.overdue(terminating(lost), WAIT, NOW)).containsExactly(lost);
    assertThat(LostPods.overdue(terminating(lost), WAIT, NOW.minusSeconds(2)))
        .as("its kubelet could still confirm")
        .isEmpty();
  }

  @Test
  void aDeletedPodWhoseNodeAnswersIsLeftToItsKubelet() {
    Pod draining = deleted("job-0", NOW.minusSeconds(600), false);

    assertThat(LostPods.overdue(terminating(draining), WAIT, NOW)).isEmpty();
  }

  @Test
  void aPodAlreadyRemovedButHeldByAFinalizerIsNotRemovedAgain() {
    Pod held = deleted("job-1", NOW.minusSeconds(600), true);
    held.getMetadata().setDeletionGracePeriodSeconds(0L);

    assertThat(LostPods.overdue(terminating(held), WAIT, NOW)).isEmpty();
  }

  private static JobObservation terminating(Pod pod) {
    return new JobObservation(
        Map.of(), Optional.empty(), Optional.empty(), 0, 0, List.of(pod), Optional.empty());
  }

  /** A pod deleted with its deletion due at {@code due}; on a lost node if {@code nodeLost}. */
  private static Pod deleted(String name, Instant due, boolean nodeLost) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withDeletionTimestamp(due.toString())
        .withDeletionGracePeriodSeconds(30L)
        .endMetadata()
        .withNewStatus()
        .withPhase("Running")
        // the node controller's mark leaves the kubelet's ContainersReady as it was
        .addNewCondition()
        .withType("Ready")
        .withStatus(nodeLost ? "False" : "True")
        .endCondition()
        .addNewCondition()
        .withType("ContainersReady")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }
}
