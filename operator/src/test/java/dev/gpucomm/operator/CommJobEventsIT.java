package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static dev.gpucomm.operator.TestCluster.hasCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Events on a CommJob tell its story, as {@code kubectl describe commjob} shows them. */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class CommJobEventsIT {
  @Inject KubernetesClient client;

  private TestCluster cluster;
  private JobEvents events;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
    events = new JobEvents(client, cluster.namespace);
  }

  @Test
  void aJobWhoseRankDiesHasEventsForItsPodsTheirRunningAndTheRankThatFailed() {
    cluster.apply(
        """
        metadata: {name: story}
        spec:
          worldSize: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("story", "story-0", "story-1");
    events.await("story", "PodsCreated");
    cluster.kubelet.run("story-0");
    cluster.kubelet.run("story-1");
    events.await("story", "PodsRunning");

    cluster.kubelet.fail("story-1", 1, "rank 1: allreduce nccl at 1 MiB: NCCL error 6");

    Event failed = events.await("story", "RankFailed");
    assertThat(failed.getType()).isEqualTo("Warning");
    assertThat(failed.getMessage())
        .isEqualTo(
            "Failed=True: pod story-1 (rank 1) failed: exit code 1: rank 1: allreduce nccl at 1"
                + " MiB: NCCL error 6");
    assertThat(failed.getInvolvedObject().getUid())
        .isEqualTo(cluster.job("story").getMetadata().getUid());
    assertThat(failed.getSource().getComponent()).isEqualTo("gpucomm-operator");
    cluster.awaitStatus("story", s -> s.getPhase() == Phase.FAILED);
    assertThat(events.of("story"))
        .extracting(Event::getReason, Event::getType)
        .contains(
            tuple("PodsCreated", "Normal"),
            tuple("PodsRunning", "Normal"),
            tuple("RankFailed", "Warning"))
        .doesNotContain(tuple("NotFinished", "Normal"));
    assertThat(events.reasons("story")).containsOnlyOnce("PodsCreated", "RankFailed");
  }

  @Test
  void aRegressionVerdictIsAWarningEventAndSuccessANormalOne() {
    cluster.createConfigMap(
        "events-baseline",
        "report.json",
        TestReports.allreduce("nightly")
            .size(
                524288,
                32,
                "oneshot",
                timing("oneshot", 6.0, 5.0, 40.0),
                timing("nccl", 14.0, 12.0, 20.0))
            .json());
    cluster.apply(
        """
        metadata: {name: verdict}
        spec:
          worldSize: 1
          device: cpu
          baseline: {configMapRef: events-baseline, maxSlowdownPercent: 5}
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """);
    cluster.awaitPods("verdict", "verdict-0");
    cluster.kubelet.run("verdict-0");
    cluster.publishReport(
        "verdict",
        TestReports.allreduce("verdict")
            .size(
                524288,
                32,
                "oneshot",
                timing("oneshot", 12.0, 10.0, 20.0),
                timing("nccl", 14.0, 12.0, 20.0))
            .json());
    cluster.kubelet.succeed("verdict-0");
    cluster.awaitStatus("verdict", s -> hasCondition(s, "Regressed", "True", "SlowerThanBaseline"));

    Event regressed = events.await("verdict", "SlowerThanBaseline");
    assertThat(regressed.getType()).isEqualTo("Warning");
    assertThat(regressed.getMessage()).startsWith("Regressed=True: ");
    assertThat(events.await("verdict", "AllRanksSucceeded").getType()).isEqualTo("Normal");
  }
}
