package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which of a job's deleted pods the operator removes for want of a kubelet to confirm their end.
 */
class LostPodsTest {
  private static final Instant NOW = Instant.parse("2026-11-29T03:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aDeletedPodOnALostNodeIsACandidateOnceItsKubeletHadTimeToConfirm() {
    Pod lost = deleted("job-1", NOW.minusSeconds(31), true);

    assertThat(LostPods.overdue(terminating(lost), WAIT, NOW)).containsExactly(lost);
    assertThat(LostPods.overdue(terminating(lost), WAIT, NOW.minusSeconds(2)))
        .as("its kubelet could still confirm")
        .isEmpty();
  }

  @Test
  void aLongGracePeriodDoesNotHoldALostPodsName() {
    Pod lost = deleted("job-1", NOW.minusSeconds(31), true);
    lost.getMetadata().setDeletionGracePeriodSeconds(600L);
    lost.getMetadata().setDeletionTimestamp(NOW.minusSeconds(31).plusSeconds(600).toString());

    assertThat(LostPods.overdue(terminating(lost), WAIT, NOW)).containsExactly(lost);
  }

  @Test
  void aDeletedPodWithoutTheNodeControllersMarkIsNoCandidate() {
    Pod draining = deleted("job-0", NOW.minusSeconds(600), false);

    assertThat(LostPods.overdue(terminating(draining), WAIT, NOW)).isEmpty();
  }

  @Test
  void aPodAlreadyRemovedButHeldByAFinalizerIsNotRemovedAgain() {
    Pod held = deleted("job-1", NOW.minusSeconds(600), true);
    held.getMetadata().setDeletionGracePeriodSeconds(0L);

    assertThat(LostPods.overdue(terminating(held), WAIT, NOW)).isEmpty();
  }

  @Test
  void aDeletedPodWhoseOwnReadinessFailsIsNoCandidate() {
    Pod probeFailing = deleted("job-0", NOW.minusSeconds(600), true);
    // the kubelet's own Ready=False turns ContainersReady False too
    probeFailing.getStatus().getConditions().get(1).setStatus("False");

    assertThat(LostPods.overdue(terminating(probeFailing), WAIT, NOW)).isEmpty();
  }

  @Test
  void theJobIsLookedAtAgainWhenTheNextLostPodFallsDue() {
    Pod dueSoon = deleted("job-1", NOW.minusSeconds(20), true);
    Pod dueLater = deleted("job-2", NOW.minusSeconds(5), true);
    Pod draining = deleted("job-0", NOW.minusSeconds(25), false);

    assertThat(LostPods.nextLook(List.of(dueLater, dueSoon, draining), WAIT, NOW))
        .contains(Duration.ofSeconds(10));
    assertThat(LostPods.nextLook(List.of(draining), WAIT, NOW))
        .as("a pod its kubelet will confirm needs no look")
        .isEmpty();
  }

  @Test
  void aDueLostPodStillHereIsLookedAtAgainLessOftenTheLongerItStays() {
    Pod dueJustNow = deleted("job-1", NOW.minusSeconds(30), true);
    Pod dueAMinuteAgo = deleted("job-1", NOW.minusSeconds(90), true);
    Pod dueFiveMinutesAgo = deleted("job-1", NOW.minusSeconds(330), true);
    Pod dueADayAgo = deleted("job-1", NOW.minusSeconds(86_430), true);

    assertThat(LostPods.overdue(terminating(dueJustNow), WAIT, NOW))
        .as("due at this very moment")
        .containsExactly(dueJustNow);
    assertThat(LostPods.nextLook(terminating(dueJustNow), WAIT, NOW))
        .contains(LostPods.FIRST_RECHECK);
    assertThat(LostPods.nextLook(terminating(dueAMinuteAgo), WAIT, NOW))
        .contains(LostPods.FIRST_RECHECK);
    assertThat(LostPods.nextLook(terminating(dueFiveMinutesAgo), WAIT, NOW))
        .contains(Duration.ofSeconds(150));
    assertThat(LostPods.nextLook(terminating(dueADayAgo), WAIT, NOW))
        .contains(LostPods.LAST_RECHECK);
  }

  @Test
  void onlyANodeGoneOrWhoseKubeletStoppedPostingStatusIsSilent() {
    assertThat(LostPods.kubeletSilent(Optional.empty())).as("node deleted").isTrue();
    assertThat(LostPods.kubeletSilent(Optional.of(node("Unknown"))))
        .as("kubelet stopped posting status")
        .isTrue();
    assertThat(LostPods.kubeletSilent(Optional.of(node("False"))))
        .as("kubelet reports its node NotReady (a container runtime down): it still answers")
        .isFalse();
    assertThat(LostPods.kubeletSilent(Optional.of(node("True")))).isFalse();
    assertThat(LostPods.kubeletSilent(Optional.of(new NodeBuilder().build())))
        .as("a node without status")
        .isFalse();
  }

  private static Node node(String ready) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-a")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready)
        .endCondition()
        .endStatus()
        .build();
  }

  private static List<Pod> terminating(Pod pod) {
    return List.of(pod);
  }

  /**
   * A pod deleted at {@code deletedAt} with a grace period of 30 s; bearing the node controller's
   * NotReady mark if {@code nodeLost}.
   */
  private static Pod deleted(String name, Instant deletedAt, boolean nodeLost) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withDeletionTimestamp(deletedAt.plusSeconds(30).toString())
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
