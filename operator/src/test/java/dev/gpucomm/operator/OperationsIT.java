package dev.gpucomm.operator;

import static dev.gpucomm.operator.TestReports.timing;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.gpucomm.api.v1alpha1.Phase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
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
}
