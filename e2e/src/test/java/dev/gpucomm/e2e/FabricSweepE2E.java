package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.FabricReport;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.e2e.cluster.ClusterExtension;
import dev.gpucomm.e2e.cluster.PodLinks;
import dev.gpucomm.e2e.sim.PodNetwork.LinkLimit;
import dev.gpucomm.e2e.sim.RequiresNetworkNamespaces;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fabric sweep over the simulated pod network, where each pod has a link of its own that tbf
 * can slow: given one pod's link at a tenth of the others' rate, the sweep names that pod's node in
 * the Degraded condition and in report.md; given every link at one rate, the fabric is not
 * degraded.
 */
@RequiresNetworkNamespaces
@ExtendWith(ClusterExtension.class)
class FabricSweepE2E {
  private static final LinkLimit BASE_RATE = new LinkLimit("200mbit", "64kb", "400ms");
  private static final LinkLimit TENTH_RATE = new LinkLimit("20mbit", "64kb", "400ms");

  private final Cluster cluster;
  private final Jobs jobs;

  FabricSweepE2E(Cluster cluster) {
    this.cluster = cluster;
    this.jobs = new Jobs(cluster);
  }

  /**
   * The pod counts swept: 8, the size the fabric-sweep study
   * (bench/results/2026-11-26-fabric-sweep) times; its command adds 4 ({@code
   * -De2e.fabricPods=4,8}) for how the time grows.
   */
  static IntStream podCounts() {
    return Arrays.stream(System.getProperty("e2e.fabricPods", "8").split(","))
        .map(String::trim)
        .filter(count -> !count.isEmpty())
        .mapToInt(Integer::parseInt);
  }

  @ParameterizedTest(name = "{0} pods")
  @MethodSource("podCounts")
  void aPodWhoseLinkRunsAtATenthIsNamedAsTheSlowNode(int pods) {
    PodLinks links = linksOrSkip();
    String name = "fabric-slow-" + pods;
    int slowPod = pods / 2;
    cluster.apply(JobManifests.fabricSweep(name, cluster.device(), pods, 1L << 20, 3));
    jobs.awaitPods(name, pods);
    for (int pod = 0; pod < pods; pod++) {
      limitOnceAttached(links, name, pod, pod == slowPod ? TENTH_RATE : BASE_RATE);
    }

    CommJob job = jobs.awaitFinished(name, Duration.ofMinutes(4));

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    String slowNode = "sim-node-" + name + "-" + slowPod;
    Condition degraded = awaitDecided(name, "Degraded");
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo("SlowNode");
    assertThat(degraded.getMessage())
        .startsWith("node " + slowNode + " slow with " + (pods - 1) + " of " + (pods - 1));
    Map<String, String> results = jobs.results(name).getData();
    assertThat(results.get("report.md")).contains("node " + slowNode + " slow");
    assertThat(results).containsKey("fabric-pods.svg");
    FabricReport report = (FabricReport) ReportJson.parse(results.get("report.json"), name);
    assertThat(report.interNode().rounds()).isEqualTo(pods - 1);
    assertThat(report.interNode().nodes()).contains(slowNode);
    // what the timing study under bench/results/2026-11-26-fabric-sweep/ reads
    System.out.printf(
        Locale.ROOT,
        "fabric sweep of %d pods: pairs measured in %.1f s, job ran %d s%n",
        pods,
        report.interNode().seconds(),
        Duration.between(
                Instant.parse(job.getStatus().getStartTime()),
                Instant.parse(job.getStatus().getCompletionTime()))
            .toSeconds());
  }

  @Test
  void linksAtOneRateAreNotDegraded() {
    PodLinks links = linksOrSkip();
    String name = "fabric-even";
    // every link held to one rate, so that the links and not this shared machine's scheduler set
    // the pace: an unlimited veth moves a transfer in about the length of a time slice, and one
    // descheduled sender then reads as a slow link
    cluster.apply(JobManifests.fabricSweep(name, cluster.device(), 4, 1L << 20, 3));
    jobs.awaitPods(name, 4);
    for (int pod = 0; pod < 4; pod++) {
      limitOnceAttached(links, name, pod, BASE_RATE);
    }

    CommJob job = jobs.awaitFinished(name, Duration.ofMinutes(3));

    assertThat(job.getStatus().getPhase()).isEqualTo(Phase.SUCCEEDED);
    Condition degraded = awaitDecided(name, "Degraded");
    assertThat(degraded.getStatus()).as(degraded.getMessage()).isEqualTo("False");
    assertThat(degraded.getReason()).isEqualTo("FabricHealthy");
    assertThat(degraded.getMessage())
        .isEqualTo("every pair within 50% of its matrix's median (4 pods)");
  }

  private Condition awaitDecided(String name, String type) {
    await(name + " " + type + " decided")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                jobs.condition(jobs.get(name), type)
                    .filter(c -> !c.getStatus().equals("Unknown"))
                    .isPresent());
    return jobs.condition(jobs.get(name), type).orElseThrow();
  }

  /** The pod's link exists once its network namespace does: retried until then. */
  private void limitOnceAttached(PodLinks links, String job, int pod, LinkLimit limit) {
    await("pod " + job + "-" + pod + "'s link limited")
        .atMost(cluster.podStartup())
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> {
              links.limit(job, pod, limit);
              return true;
            });
  }

  private PodLinks linksOrSkip() {
    assumeTrue(
        cluster.podLinks().isPresent(),
        "slowing a pod's link needs the offline cluster's pod network");
    return cluster.podLinks().orElseThrow();
  }
}
