package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestCluster.hasCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CleanPodPolicy;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What stays of a finished job: cleanPodPolicy for its pods, ttlSecondsAfterFinished for it. */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class FinishedJobCleanupIT {
  @Inject KubernetesClient client;

  private TestCluster cluster;

  @BeforeEach
  void connect() {
    cluster = new TestCluster(client);
  }

  @Test
  void aFinishedJobWithATtlIsDeletedWithItsPodsOnceTheTtlHasPassed() {
    create("ci-run", 2, "cleanPodPolicy: None\n  ttlSecondsAfterFinished: 2");
    cluster.awaitPods("ci-run", "ci-run-0", "ci-run-1");
    cluster.kubelet.run("ci-run-0");
    cluster.kubelet.run("ci-run-1");
    cluster.kubelet.succeed("ci-run-0");
    cluster.kubelet.succeed("ci-run-1");

    CommJobStatus succeeded = cluster.awaitStatus("ci-run", s -> s.getPhase() == Phase.SUCCEEDED);
    assertThat(cluster.job("ci-run")).as("kept until the TTL").isNotNull();
    assertThat(cluster.pods("ci-run")).hasSize(2);

    await()
        .atMost(TestCluster.PATIENCE)
        .until(() -> cluster.job("ci-run") == null && cluster.pods("ci-run").isEmpty());
    assertThat(succeeded.getCompletionTime()).isNotNull();
  }

  @Test
  void aTtlSetAfterTheJobStartedAppliesWithoutMarkingTheSpecChanged() {
    create("late-ttl", 2, "cleanPodPolicy: Running");
    cluster.awaitPods("late-ttl", "late-ttl-0", "late-ttl-1");
    cluster.edit("late-ttl", job -> job.getSpec().setTtlSecondsAfterFinished(1));
    cluster.kubelet.run("late-ttl-0");
    cluster.kubelet.run("late-ttl-1");
    CommJobStatus running = cluster.awaitStatus("late-ttl", s -> s.getPhase() == Phase.RUNNING);
    assertThat(running.getConditions()).extracting("type").doesNotContain("SpecChanged");

    cluster.kubelet.fail("late-ttl-1", 1, "rank 1: NCCL error: unhandled system error");

    await().atMost(TestCluster.PATIENCE).until(() -> cluster.job("late-ttl") == null);
    await().atMost(TestCluster.PATIENCE).until(() -> cluster.pods("late-ttl").isEmpty());
  }

  @Test
  void cleanPodPolicyAllDeletesASucceededJobsPodsAndKeepsTheJob() {
    create("all-ok", 2, "cleanPodPolicy: All");
    cluster.awaitPods("all-ok", "all-ok-0", "all-ok-1");
    cluster.kubelet.run("all-ok-0");
    cluster.kubelet.run("all-ok-1");
    cluster.kubelet.succeed("all-ok-0");
    cluster.kubelet.succeed("all-ok-1");

    cluster.awaitStatus("all-ok", s -> s.getPhase() == Phase.SUCCEEDED);
    cluster.awaitPods("all-ok");
    assertThat(cluster.job("all-ok").getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
  }

  @Test
  void cleanPodPolicyAllKeepsAFailedJobsFailedPodForItsLogs() {
    create("all-failed", 2, "cleanPodPolicy: All");
    cluster.awaitPods("all-failed", "all-failed-0", "all-failed-1");
    cluster.kubelet.run("all-failed-0");
    cluster.kubelet.run("all-failed-1");
    cluster.kubelet.succeed("all-failed-0");
    cluster.kubelet.fail("all-failed-1", 1, "rank 1: out of memory");

    cluster.awaitStatus("all-failed", s -> hasCondition(s, "Failed", "True", "RankFailed"));
    cluster.awaitPods("all-failed", "all-failed-1");
  }

  @Test
  void cleanPodPolicyRunningDeletesOnlyThePodsThatHaveNotFinished() {
    create("running-policy", 3, "cleanPodPolicy: Running");
    cluster.awaitPods("running-policy", "running-policy-0", "running-policy-1", "running-policy-2");
    cluster.kubelet.run("running-policy-0");
    cluster.kubelet.run("running-policy-1");
    cluster.kubelet.run("running-policy-2");
    cluster.kubelet.succeed("running-policy-0");
    cluster.kubelet.fail("running-policy-1", 1, "rank 1: out of memory");

    cluster.awaitStatus("running-policy", s -> s.getPhase() == Phase.FAILED);
    cluster.awaitPods("running-policy", "running-policy-0", "running-policy-1");
  }

  @Test
  void cleanPodPolicyNoneKeepsEveryPodEvenAHungRank() {
    create("keep-all", 3, "cleanPodPolicy: None");
    cluster.awaitPods("keep-all", "keep-all-0", "keep-all-1", "keep-all-2");
    cluster.kubelet.run("keep-all-0");
    cluster.kubelet.run("keep-all-1");
    cluster.kubelet.run("keep-all-2");
    cluster.kubelet.fail("keep-all-1", 1, "rank 1: out of memory");

    cluster.awaitStatus("keep-all", s -> s.getPhase() == Phase.FAILED);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> cluster.pods("keep-all").size() == 3);
    assertThat(cluster.job("keep-all").getSpec().getCleanPodPolicy())
        .isEqualTo(CleanPodPolicy.NONE);
  }

  /** A CPU job of {@code ranks} pods whose spec also holds the {@code lifecycle} lines. */
  private void create(String name, int ranks, String lifecycle) {
    cluster.apply(
        """
        metadata: {name: %s}
        spec:
          worldSize: %d
          device: cpu
          %s
          workload:
            kind: benchmark
            benchmark: {tokens: [32]}
        """
            .formatted(name, ranks, lifecycle));
  }
}
