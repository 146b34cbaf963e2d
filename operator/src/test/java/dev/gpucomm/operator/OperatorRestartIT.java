package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator process is killed in the middle of a job and a new one (empty caches) takes over: it
 * creates no second set of pods and brings the status to where the pods are. Runs the packaged
 * operator as a process against a mock API server of its own.
 */
class OperatorRestartIT {
  private static final Path LOG = Path.of("target", "operator-restart-it.log");

  @Test
  void anOperatorKilledMidJobIsReplacedWithoutDuplicatePodsAndTheStatusConverges()
      throws Exception {
    try (StandaloneApiServer apiServer = StandaloneApiServer.start()) {
      TestCluster cluster = new TestCluster(apiServer.client);
      List<Pod> pods;
      CommJobStatus running;
      OperatorProcess first =
          OperatorProcess.start(apiServer.url(), LOG, OperatorJvm.OPTIONS, Map.of());
      try {
        cluster.apply(
            """
            metadata: {name: survives}
            spec:
              worldSize: 4
              device: cpu
              workload:
                kind: benchmark
                benchmark: {tokens: [32]}
            """);
        pods =
            cluster.awaitPods("survives", "survives-0", "survives-1", "survives-2", "survives-3");
        pods.forEach(pod -> cluster.kubelet.run(pod.getMetadata().getName()));
        running =
            cluster.awaitStatus(
                "survives", s -> TestCluster.hasCondition(s, "Ready", "True", "PodsRunning"));
      } finally {
        first.kill();
      }

      // while no operator runs, half the ranks finish and rank 0 publishes the report
      cluster.kubelet.succeed("survives-0");
      cluster.kubelet.succeed("survives-1");
      cluster.publishReport(
          "survives",
          TestReports.allreduce("survives")
              .size(65536, 32, "ring", TestReports.timing("ring", 20.0, null, 5.0))
              .json());

      // the replacement runs as in production: with leader election through a Lease
      try (OperatorProcess second =
          OperatorProcess.start(
              apiServer.url(),
              LOG,
              OperatorJvm.OPTIONS,
              Map.of("GPUCOMM_OPERATOR_LEADER_ELECTION_ENABLED", "true"))) {
        Lease lease =
            apiServer
                .client
                .resources(Lease.class)
                .inNamespace("test")
                .withName("gpucomm-operator-leader")
                .get();
        assertThat(lease).as("the leader's Lease").isNotNull();
        assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

        CommJobStatus caughtUp =
            cluster.awaitStatus(
                "survives",
                s ->
                    TestCluster.hasCondition(s, "Ready", "False", "PodsPending")
                        && condition(s).contains("2 of 4 pods running, 2 succeeded"));
        assertThat(caughtUp.getPhase()).isEqualTo(Phase.RUNNING);
        await()
            .during(Duration.ofSeconds(1))
            .atMost(TestCluster.PATIENCE)
            .untilAsserted(
                () ->
                    assertThat(cluster.pods("survives"))
                        .extracting(pod -> pod.getMetadata().getUid())
                        .containsExactlyInAnyOrderElementsOf(
                            pods.stream().map(pod -> pod.getMetadata().getUid()).toList()));

        cluster.kubelet.succeed("survives-2");
        cluster.kubelet.succeed("survives-3");
        CommJobStatus done =
            cluster.awaitStatus(
                "survives", s -> s.getPhase() == Phase.SUCCEEDED && s.getSummary() != null);
        assertThat(done.getStartTime()).isEqualTo(running.getStartTime());
        assertThat(done.getBest()).isEqualTo("ring");
        assertThat(cluster.pods("survives")).hasSize(4);
      }
    }
  }

  private static String condition(CommJobStatus status) {
    return TestCluster.condition(status, "Ready").getMessage();
  }
}
