package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.GangScheduler;
import dev.gpucomm.api.v1alpha1.GangSpec;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a gang's PodGroup says of the job's place in its scheduler's queue. */
class PodGroupsTest {
  private static final String UID = "uid-of-the-job";

  @Test
  void aVolcanoGroupStillPendingHoldsTheJobNamingItsQueueAndWhy() {
    Optional<String> hold =
        PodGroups.queueHold(
            Optional.of(ownGroup("Pending", "queue resource quota insufficient")),
            job(GangScheduler.VOLCANO));

    assertThat(hold)
        .contains(
            "Volcano's queue gpu-benchmarks has not admitted PodGroup train yet (phase Pending):"
                + " queue resource quota insufficient");
  }

  @Test
  void anAdmittedGroupOrAGroupVolcanoHasNotLookedAtHoldsNothing() {
    assertThat(
            PodGroups.queueHold(Optional.of(ownGroup("Inqueue", null)), job(GangScheduler.VOLCANO)))
        .isEmpty();
    // no phase: no Volcano scheduler has seen it (is one running?); the start-up allowance runs
    assertThat(PodGroups.queueHold(Optional.of(ownGroup(null, null)), job(GangScheduler.VOLCANO)))
        .isEmpty();
  }

  @Test
  void theCoschedulingPluginQueuesNothing() {
    assertThat(
            PodGroups.queueHold(
                Optional.of(ownGroup("Pending", null)), job(GangScheduler.COSCHEDULING)))
        .isEmpty();
  }

  @Test
  void aHeldGangWhoseGroupIsMomentarilyGoneStaysHeld() {
    CommJob held = job(GangScheduler.VOLCANO);
    held.getStatus()
        .setConditions(
            List.of(
                new ConditionBuilder()
                    .withType(Reasons.QUEUED)
                    .withStatus("True")
                    .withReason(Reasons.POD_GROUP_PENDING)
                    .build()));

    assertThat(PodGroups.queueHold(Optional.empty(), held)).isPresent();
    assertThat(PodGroups.queueHold(Optional.empty(), job(GangScheduler.VOLCANO)))
        .as("a gang never held is not held for want of its group")
        .isEmpty();
  }

  private static CommJob job(GangScheduler scheduler) {
    CommJob job = new CommJob();
    job.setMetadata(
        new ObjectMetaBuilder().withName("train").withNamespace("ml").withUid(UID).build());
    CommJobSpec spec = new CommJobSpec();
    GangSpec gang = new GangSpec().withScheduler(scheduler);
    gang.setQueue("gpu-benchmarks");
    spec.setGang(gang);
    job.setSpec(spec);
    job.setStatus(new CommJobStatus());
    return job;
  }

  /** The job's own Volcano PodGroup, in {@code phase}, unschedulable for {@code why}. */
  private static GenericKubernetesResource ownGroup(String phase, String why) {
    Map<String, Object> status = new java.util.HashMap<>();
    if (phase != null) {
      status.put("phase", phase);
    }
    if (why != null) {
      status.put(
          "conditions", List.of(Map.of("type", "Unschedulable", "status", "True", "message", why)));
    }
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("scheduling.volcano.sh/v1beta1")
        .withKind("PodGroup")
        .withMetadata(
            new ObjectMetaBuilder()
                .withName("train")
                .withNamespace("ml")
                .addNewOwnerReference()
                .withApiVersion("gpucomm.dev/v1alpha1")
                .withKind("CommJob")
                .withName("train")
                .withUid(UID)
                .withController(true)
                .endOwnerReference()
                .build())
        .addToAdditionalProperties("spec", Map.of("minMember", 2, "queue", "gpu-benchmarks"))
        .addToAdditionalProperties("status", status)
        .build();
  }
}
