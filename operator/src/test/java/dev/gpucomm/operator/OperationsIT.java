package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** What an operations team scrapes and probes: health endpoints and Prometheus metrics. */
@QuarkusTest
@WithKubernetesTestServer(setup = CommJobCrdSetup.class)
class OperationsIT {
  @Inject KubernetesClient client;

  @Test
  void probesReportTheOperatorUp() {
    given().get("/q/health/live").then().statusCode(200).body(containsString("\"UP\""));
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body(containsString("\"UP\""), containsString("commjob"));
  }

  @Test
  void metricsShowJobsByPhaseReconcileTimesAndTheFiguresOfFinishedJobs() {
    TestCluster cluster = new TestCluster(client);
    cluster.apply(
        """
        metadata: {name: scraped}
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: cpu
          workload:
            kind: benchmark
            benchmark: {sizes: [1048576], algorithms: [ring, oneshot]}
        """);
    cluster.awaitPods("scraped", "scraped-0");
    cluster.kubelet.run("scraped-0");
    cluster.publishReport(
        "scraped",
        TestReports.allreduce("scraped")
            .size(
                1048576,
                null,
                "oneshot",
                timing("ring", 80.0, null, 13.1),
                timing("oneshot", 41.5, null, 25.3))
            .json());
    cluster.kubelet.succeed("scraped-0");
    cluster.awaitStatus("scraped", s -> s.getPhase() == Phase.SUCCEEDED && s.getSummary() != null);

    String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
    String labels =
        "\\{algorithm=\"oneshot\",bytes=\"1048576\",collective=\"allreduce\",job=\"scraped\","
            + "namespace=\""
            + cluster.namespace
            + "\",?}";
    assertThat(metrics)
        .containsPattern("gpucomm_jobs\\{phase=\"Succeeded\",?} [1-9]")
        .containsPattern("gpucomm_reconcile_duration_seconds_count(\\{})? [1-9]")
        .containsPattern("gpucomm_job_latency_microseconds" + labels + " 41.5")
        // nccl-tests' busbw of the report's 8 ranks: 1048576 B / 41.5 us x 2(8-1)/8 = 44.217
        .containsPattern("gpucomm_job_bus_bandwidth_gbps" + labels + " 44.217");
  }

  @Test
  void perNodeGaugesNameTheNodesOfFinishedJobsAndADeletedJobsSeriesGoWhileAnothersStay() {
    TestCluster cluster = new TestCluster(client);
    // given a benchmark whose two ranks ran on node-a and node-b, and a fabric sweep of three nodes
    cluster.apply(
        """
        metadata: {name: two-nodes}
        spec:
          worldSize: 2
          ranksPerPod: 1
          device: cpu
          workload:
            kind: benchmark
            benchmark: {sizes: [1048576], algorithms: [ring]}
        """);
    finish(
        cluster,
        "two-nodes",
        TestReports.allreduce("two-nodes")
            .size(1048576, null, "ring", timing("ring", 80.0, null, 13.1))
            .ranksOn("node-a", "node-b")
            .json(),
        "two-nodes-0",
        "two-nodes-1");
    cluster.apply(
        """
        metadata: {name: three-nodes}
        spec:
          worldSize: 3
          ranksPerPod: 1
          device: cpu
          workload: {kind: fabric, fabric: {bytes: 1048576}}
        """);
    finish(
        cluster,
        "three-nodes",
        TestReports.fabricSweep(
            "three-nodes",
            List.of("node-a", "node-b", "node-c"),
            new Double[][] {{null, 9.0, 10.0}, {9.5, null, 2.0}, {10.0, 2.0, null}}),
        "three-nodes-0",
        "three-nodes-1",
        "three-nodes-2");

    String both = awaitMetrics(m -> m.contains("job=\"three-nodes\""));
    assertThat(both)
        .containsPattern(nodeSeries("gpucomm_job_node_latency_microseconds", "two-nodes", "node-a"))
        .containsPattern(nodeSeries("gpucomm_job_node_latency_microseconds", "two-nodes", "node-b"))
        .containsPattern(
            nodeSeries("gpucomm_fabric_node_bandwidth_gbps", "three-nodes", "node-a") + " 9.5")
        .containsPattern(
            nodeSeries("gpucomm_fabric_node_bandwidth_gbps", "three-nodes", "node-c") + " 6.0");

    // when the benchmark is deleted, then its series go and the sweep's stay
    client.resources(CommJob.class).withName("two-nodes").delete();
    String afterOne = awaitMetrics(m -> !m.contains("job=\"two-nodes\""));
    assertThat(afterOne)
        .containsPattern(nodeSeries("gpucomm_fabric_node_bandwidth_gbps", "three-nodes", "node-b"));

    // and deleting the last job leaves no series of it, with no other job to reconcile
    client.resources(CommJob.class).withName("three-nodes").delete();
    awaitMetrics(m -> !m.contains("job=\"three-nodes\""));
  }

  /** Runs the job's pods, publishes its report and waits until it has succeeded with it. */
  private static void finish(TestCluster cluster, String job, String report, String... pods) {
    cluster.awaitPods(job, pods);
    for (String pod : pods) {
      cluster.kubelet.run(pod);
    }
    cluster.publishReport(job, report);
    for (String pod : pods) {
      cluster.kubelet.succeed(pod);
    }
    cluster.awaitStatus(job, s -> s.getPhase() == Phase.SUCCEEDED && s.getReportRef() != null);
  }

  private String nodeSeries(String metric, String job, String node) {
    return metric
        + "\\{job=\""
        + job
        + "\",namespace=\""
        + client.getNamespace()
        + "\",node=\""
        + node
        + "\",?}";
  }

  private static String awaitMetrics(Predicate<String> condition) {
    return await()
        .atMost(TestCluster.PATIENCE)
        .until(
            () -> given().get("/q/metrics").then().statusCode(200).extract().asString(), condition);
  }
}
