package dev.gpucomm.operator;

import static dev.gpucomm.operator.AutoscalerEvents.CLUSTER_AUTOSCALER;
import static dev.gpucomm.operator.AutoscalerEvents.NO_SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.SCALE_UP;
import static dev.gpucomm.operator.AutoscalerEvents.legacy;
import static dev.gpucomm.operator.AutoscalerEvents.series;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a node autoscaler's Events say of a pod: a node on its way, or none coming. */
class NodeProvisioningTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private final Pod waiting = pod("uid-1");

  @Test
  void aScaleUpForThePodIsANodeOnItsWaySinceTheAutoscalerFirstSaidSo() {
    NodeProvisioning provisioning =
        of(
            legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, waiting, T, T.plusSeconds(90), SCALE_UP),
            legacy(
                "TriggeredScaleUp",
                CLUSTER_AUTOSCALER,
                pod("uid-other"),
                T.minusSeconds(500),
                T,
                ""));

    NodeProvisioning.Word word = provisioning.on(waiting).orElseThrow();

    assertThat(word.promisesANode()).isTrue();
    assertThat(word.since()).isEqualTo(T);
    assertThat(word.inWords())
        .isEqualTo(
            "cluster-autoscaler's TriggeredScaleUp at 2026-01-01T00:00:00Z: pod triggered"
                + " scale-up: [{gpu-pool 0->1 (max: 4)}]");
  }

  @Test
  void karpentersNominationInEventsOfTheNewKindIsOneToo() {
    NodeProvisioning provisioning =
        of(series("Nominated", "karpenter", waiting, T.plusSeconds(5), T.plusSeconds(300)));

    NodeProvisioning.Word word = provisioning.on(waiting).orElseThrow();

    assertThat(word.promisesANode()).isTrue();
    assertThat(word.by()).isEqualTo("karpenter");
    assertThat(word.since()).isEqualTo(T.plusSeconds(5));
  }

  @Test
  void anAutoscalerThatDeclinesAfterItsPromiseHasTheLastWord() {
    NodeProvisioning provisioning =
        of(
            legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, waiting, T, T, SCALE_UP),
            legacy(
                "NotTriggerScaleUp",
                CLUSTER_AUTOSCALER,
                waiting,
                T.plusSeconds(900),
                T.plusSeconds(960),
                NO_SCALE_UP));

    NodeProvisioning.Word word = provisioning.on(waiting).orElseThrow();

    assertThat(word.promisesANode()).isFalse();
    assertThat(word.message()).isEqualTo(NO_SCALE_UP);
    assertThat(word.inWords()).as("quoted as last said").contains("at 2026-01-01T00:16:00Z");
  }

  @Test
  void aPromiseRepeatedAfterADeclineIsOneEventAndTheWaitBeginsAfterTheDecline() {
    // cluster-autoscaler tries the group again after its back-off with the same message: its
    // recorder counts that into the first promise's Event, whose first time stays where it was
    NodeProvisioning provisioning =
        of(
            legacy(
                "TriggeredScaleUp", CLUSTER_AUTOSCALER, waiting, T, T.plusSeconds(1000), SCALE_UP),
            legacy(
                "NotTriggerScaleUp",
                CLUSTER_AUTOSCALER,
                waiting,
                T.plusSeconds(300),
                T.plusSeconds(900),
                NO_SCALE_UP));

    NodeProvisioning.Word word = provisioning.on(waiting).orElseThrow();

    assertThat(word.promisesANode()).isTrue();
    assertThat(word.since()).isEqualTo(T.plusSeconds(900));
  }

  @Test
  void karpentersOwnSchedulingFailureIsADeclineAndTheSchedulersIsNone() {
    NodeProvisioning provisioning =
        of(
            series("Nominated", "karpenter", waiting, T, T),
            legacy(
                "FailedScheduling",
                "default-scheduler",
                waiting,
                T.plusSeconds(60),
                T.plusSeconds(600),
                "0/3 nodes are available"),
            legacy(
                "FailedScheduling",
                "karpenter",
                waiting,
                T.plusSeconds(120),
                T.plusSeconds(120),
                "Failed to schedule pod, all available instance types exceed limits for nodepool"));

    NodeProvisioning.Word word = provisioning.on(waiting).orElseThrow();

    assertThat(word.promisesANode()).isFalse();
    assertThat(word.by()).isEqualTo("karpenter");
  }

  @Test
  void aPromiseAfterADeclineStandsAndTheWaitBeginsWithIt() {
    // no node group fit until an administrator added one
    NodeProvisioning provisioning =
        of(
            legacy(
                "NotTriggerScaleUp",
                CLUSTER_AUTOSCALER,
                waiting,
                T,
                T.plusSeconds(600),
                NO_SCALE_UP),
            legacy(
                "TriggeredScaleUp",
                CLUSTER_AUTOSCALER,
                waiting,
                T.plusSeconds(610),
                T.plusSeconds(610),
                SCALE_UP));

    assertThat(provisioning.on(waiting).orElseThrow().since()).isEqualTo(T.plusSeconds(610));
  }

  @Test
  void aPodNoAutoscalerSpokeOfHasNoWordAndTheEventsAreReadOnce() {
    AtomicInteger reads = new AtomicInteger();
    NodeProvisioning provisioning =
        NodeProvisioning.of(
            () -> {
              reads.incrementAndGet();
              return List.of(
                  legacy("TriggeredScaleUp", CLUSTER_AUTOSCALER, pod("uid-2"), T, T, ""));
            });

    assertThat(provisioning.on(waiting)).isEmpty();
    assertThat(provisioning.on(pod("uid-2"))).isPresent();
    assertThat(reads).hasValue(1);
  }

  private static NodeProvisioning of(Event... events) {
    return NodeProvisioning.of(() -> List.of(events));
  }

  private static Pod pod(String uid) {
    return new PodBuilder().withNewMetadata().withName("job-1").withUid(uid).endMetadata().build();
  }
}
