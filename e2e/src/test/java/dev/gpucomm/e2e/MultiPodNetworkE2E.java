package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.e2e.cluster.ClusterExtension;
import dev.gpucomm.e2e.cluster.PodLinks;
import dev.gpucomm.e2e.sim.PodNetwork;
import dev.gpucomm.e2e.sim.PodNetwork.LinkLimit;
import dev.gpucomm.e2e.sim.RequiresNetworkNamespaces;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Jobs of several pods whose ranks reach each other across a network: offline, every simulated pod
 * has a network namespace and an address of its own on a bridge, so rendezvous and cross-pod
 * traffic cross a real network stack, and a pod's link can be cut or slowed. Where this machine
 * cannot make network namespaces the scenarios are skipped, saying why.
 */
@RequiresNetworkNamespaces
@ExtendWith(ClusterExtension.class)
class MultiPodNetworkE2E {
  /**
   * Long enough for the JVMs of three pods to start on a small machine and for the store to miss a
   * cut pod's heartbeats after that (10 s), short for a scenario.
   */
  private static final int CUT_JOB_TIMEOUT_SECONDS = 60;

  private final Cluster cluster;
  private final Jobs jobs;

  MultiPodNetworkE2E(Cluster cluster) {
    this.cluster = cluster;
    this.jobs = new Jobs(cluster);
  }

  @Test
  void aOnePodJobRunsInItsOwnNetworkNamespaceAndReportsAcrossTheBridge() {
    cluster.apply(JobManifests.allReduceSweep("netns", cluster.device(), "trtllm"));

    jobs.awaitPods("netns", 1);
    CommJob job = jobs.awaitFinished("netns");

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    // Rank 0 wrote the report to the API server from inside the pod's namespace.
    assertThat(jobs.results("netns").getData()).containsKey("report.json");
    if (cluster.podLinks().isPresent()) { // offline: the pod network is the suite's own
      assertThat(jobs.pods("netns"))
          .extracting(pod -> pod.getStatus().getPodIP())
          .allSatisfy(MultiPodNetworkE2E::assertIsOnThePodNetwork);
    }
  }

  @ParameterizedTest(name = "{0} pods of {1} ranks")
  @CsvSource({"2, 2", "3, 2"})
  void anAllReduceSweepAcrossPodsSucceedsWithTheHeuristicsChoices(int pods, int ranksPerPod) {
    String name = "across-" + pods + "x" + ranksPerPod;
    CommJob applied =
        cluster.apply(JobManifests.multiPodSweep(name, cluster.device(), pods, ranksPerPod));

    List<Pod> created = jobs.awaitPods(name, pods);
    CommJob job = jobs.awaitFinished(name);

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    BenchmarkReport report = Reports.benchmark(jobs.results(name).getData().get("report.json"));
    assertThat(report.worldSize()).as("ranks that rendezvoused").isEqualTo(pods * ranksPerPod);
    assertThat(job.getStatus().getSummary())
        .extracting(SizeSummary::getBytes)
        .containsExactlyElementsOf(JobManifests.SWEEP_BYTES);
    for (SizeSummary size : job.getStatus().getSummary()) {
      assertThat(size.getChosen())
          .as("algorithm auto chose for %d bytes on %d pods", size.getBytes(), pods)
          .isEqualTo(Expectations.chosenByHeuristic(applied.getSpec(), size));
      assertThat(size.getLatencyMicros()).isPositive();
    }
    assertThat(jobs.pods(name))
        .extracting(pod -> pod.getStatus().getPodIP())
        .as("an address per pod")
        .doesNotHaveDuplicates()
        .hasSize(created.size());
  }

  @Test
  void aPodWhoseLinkIsCutMidRunFailsTheJobNamingThatPodsRanks() {
    PodLinks links = linksOrSkip();
    cluster.apply(
        JobManifests.longMultiPodAllReduce("cut", cluster.device(), CUT_JOB_TIMEOUT_SECONDS));
    jobs.awaitPods("cut", 2);
    CommJob running = jobs.awaitPhase("cut", Phase.RUNNING);
    // Cut only once the ranks run their collectives: pod cut-1's ranks have connections to pod
    // cut-0's other than to the rendezvous store. Cut before its ranks joined, pod cut-1 would
    // look like a pod that is slow to start, for which the job's timeout is the right answer.
    int rendezvousPort = jobs.rendezvousPort("cut");
    await("pod cut-1's ranks exchanging data with pod cut-0's")
        .atMost(cluster.podStartup().plusSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                links.connections("cut", 1).stream()
                    .anyMatch(connection -> !connection.uses(rendezvousPort)));

    links.cut("cut", 1);

    CommJob job = jobs.awaitFinished("cut", Duration.ofSeconds(CUT_JOB_TIMEOUT_SECONDS + 15));
    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.FAILED);
    Duration ran =
        Duration.between(
            Instant.parse(running.getStatus().getStartTime()),
            Instant.parse(job.getStatus().getCompletionTime()));
    assertThat(ran).isLessThanOrEqualTo(Duration.ofSeconds(CUT_JOB_TIMEOUT_SECONDS + 5));
    // A cut link sends no reset: the store, next to rank 0, misses the heartbeats of pod cut-1's
    // ranks and fails the other ranks' waits naming them, long before the job's deadline.
    Condition failed = jobs.condition(job, "Failed").orElseThrow();
    assertThat(failed.getReason()).isEqualTo("RankFailed");
    assertThat(failed.getMessage()).contains("ranks 2, 3 sent no heartbeat");
    await("no pod of cut left running")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(jobs.pods("cut"))
                    .allSatisfy(
                        p -> assertThat(p.getStatus().getPhase()).isIn("Failed", "Succeeded")));
    jobs.awaitNoLiveProcesses("cut");
  }

  @Test
  void aJobWithOnePodsLinkRateLimitedStillSucceeds() {
    PodLinks links = linksOrSkip();
    cluster.apply(JobManifests.multiPodSweep("slow", cluster.device(), 2, 2));
    jobs.awaitPods("slow", 2);

    await("pod slow-1's link limited")
        .atMost(cluster.podStartup())
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> {
              links.limit("slow", 1, new LinkLimit("20mbit", "64kb", "400ms"));
              return true;
            });
    CommJob job = jobs.awaitFinished("slow");

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    assertThat(job.getStatus().getSummary()).hasSize(JobManifests.SWEEP_BYTES.size());
  }

  private PodLinks linksOrSkip() {
    assumeTrue(
        cluster.podLinks().isPresent(),
        "cutting or slowing a pod's link needs the offline cluster's pod network");
    return cluster.podLinks().orElseThrow();
  }

  private static void assertIsOnThePodNetwork(String podIp) {
    assertThat(PodNetwork.isPodAddress(podIp))
        .as("%s is a pod's own address on the bridge, not the node's", podIp)
        .isTrue();
  }
}
