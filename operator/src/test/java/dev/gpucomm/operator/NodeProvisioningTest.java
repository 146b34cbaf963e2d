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
    // a node given up on lengthens no wait
    assertThat(provisioning.lastWaitBegan(List.of(waiting))).isEmpty();
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
    assertThat(provisioning.lastWaitBegan(List.of(waiting, pod("uid-2")))).contains(T);
    assertThat(reads).hasValue(1);
  }

  private static NodeProvisioning of(Event... events) {
    return NodeProvisioning.of(() -> List.of(events));
  }

  private static Pod pod(String uid) {
    return new PodBuilder().withNewMetadata().withName("job-1").withUid(uid).endMetadata().build();
  }
}
