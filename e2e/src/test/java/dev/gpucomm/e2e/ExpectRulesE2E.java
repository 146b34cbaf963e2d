package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.e2e.cluster.ClusterExtension;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Acceptance floors without a baseline: a benchmark whose spec.expect rules hold meets
 * expectations, one with a floor out of reach does not and says which rule and what was measured,
 * and a rule on a size the benchmark does not measure is refused.
 */
@ExtendWith(ClusterExtension.class)
class ExpectRulesE2E {
  private final Cluster cluster;
  private final Jobs jobs;

  ExpectRulesE2E(Cluster cluster) {
    this.cluster = cluster;
    this.jobs = new Jobs(cluster);
  }

  @Test
  void aSweepWithinItsFloorsMeetsExpectationsAndOneBelowAFloorDoesNot() {
    long small = JobManifests.SWEEP_BYTES.get(1);
    long large = JobManifests.SWEEP_BYTES.get(2);
    cluster.apply(
        JobManifests.withExpect(
            JobManifests.allReduceSweep("floors-met", cluster.device(), "trtllm"),
            "{collective: allreduce, bytes: '%d', maxLatencyMicros: 10000000}".formatted(small)));
    cluster.apply(
        JobManifests.withExpect(
            JobManifests.allReduceSweep("floor-missed", cluster.device(), "trtllm"),
            "{collective: allreduce, bytes: '%d', maxLatencyMicros: 10000000}".formatted(small),
            "{collective: allreduce, bytes: '%d', minBusBandwidthGBps: 100000}".formatted(large)));

    assertThat(jobs.awaitFinished("floors-met").getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(jobs.awaitFinished("floor-missed").getStatus().getPhase())
        .isEqualTo(Phase.SUCCEEDED);

    Condition met = awaitDecided("floors-met");
    assertThat(met.getStatus()).isEqualTo("True");
    assertThat(met.getReason()).isEqualTo("AllExpectationsMet");
    assertThat(met.getMessage()).isEqualTo("all 1 rules met");
    Condition missed = awaitDecided("floor-missed");
    assertThat(missed.getStatus()).isEqualTo("False");
    assertThat(missed.getReason()).isEqualTo("ExpectationsNotMet");
    assertThat(missed.getMessage())
        .startsWith("1 of 2 rules not met: spec.expect[1] (allreduce " + large + "): ")
        .endsWith("GB/s, below 100000 GB/s");
  }

  @Test
  void aRuleOnASizeNotMeasuredIsRefusedNamingTheField() {
    String invalid =
        JobManifests.withExpect(
            JobManifests.allReduceSweep("floor-unmeasured", cluster.device(), "trtllm"),
            "{collective: allreduce, bytes: 64Mi, minBusBandwidthGBps: 1}");

    if (cluster.validatesAtAdmission()) {
      assertThatThrownBy(() -> cluster.apply(invalid))
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("spec.expect[0].bytes");
      return;
    }
    cluster.apply(invalid);
    CommJob job = jobs.awaitFinished("floor-unmeasured", Duration.ofSeconds(30));
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.FAILED);
    Condition failed = jobs.condition(job, "Failed").orElseThrow();
    assertThat(failed.getReason()).isEqualTo("InvalidSpec");
    assertThat(failed.getMessage())
        .contains(
            "spec.expect[0].bytes: 64Mi (67108864 bytes) is not a size the benchmark measures");
    assertThat(jobs.pods("floor-unmeasured")).isEmpty();
  }

  private Condition awaitDecided(String name) {
    await(name + " MeetsExpectations decided")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                jobs.condition(jobs.get(name), "MeetsExpectations")
                    .filter(c -> !c.getStatus().equals("Unknown"))
                    .isPresent());
    return jobs.condition(jobs.get(name), "MeetsExpectations").orElseThrow();
  }
}
