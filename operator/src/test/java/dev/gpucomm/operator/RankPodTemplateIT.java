package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose GPU nodes are tainted gives every job the toleration through the chart's
 * runtime.podTemplate: the packaged operator, started with the environment the chart renders from
 * it, puts it in every rank pod. Runs the operator as a process against a mock API server of its
 * own.
 */
class RankPodTemplateIT {
  private static final Path LOG = Path.of("target", "rank-pod-template-it.log");
  private static final Path BROKEN_LOG = Path.of("target", "rank-pod-template-broken-it.log");

  /** What the chart renders from runtime.podTemplate (toJson of the value, base64-encoded). */
  private static final String CHART_TEMPLATE =
      chartRendering(
          """
          {"metadata":{"labels":{"cost-center":"gpu-benchmarks"}},\
          "spec":{"priorityClassName":"gpu-batch",\
          "tolerations":[{"effect":"NoSchedule","key":"nvidia.com/gpu","operator":"Exists"}]}}""");

  @Test
  void everyRankPodToleratesTheGpuTaintWithoutTheJobSayingSo() throws Exception {
    try (StandaloneApiServer apiServer = StandaloneApiServer.start();
        OperatorProcess operator =
            OperatorProcess.start(
                apiServer.url(),
                LOG,
                OperatorJvm.OPTIONS,
                Map.of("GPUCOMM_OPERATOR_RANK_POD_TEMPLATE", CHART_TEMPLATE))) {
      TestCluster cluster = new TestCluster(apiServer.client);
      cluster.apply(
          """
          metadata: {name: tainted}
          spec:
            worldSize: 2
            device: cpu
            workload:
              kind: benchmark
              benchmark: {tokens: [32]}
            template:
              metadata: {labels: {team: inference}}
          """);

      List<Pod> pods = cluster.awaitPods("tainted", "tainted-0", "tainted-1");

      for (Pod pod : pods) {
        assertThat(pod.getSpec().getTolerations())
            .extracting(Toleration::getKey, Toleration::getOperator, Toleration::getEffect)
            .containsExactly(tuple("nvidia.com/gpu", "Exists", "NoSchedule"));
        assertThat(pod.getSpec().getPriorityClassName()).isEqualTo("gpu-batch");
        assertThat(pod.getMetadata().getLabels())
            .containsEntry("cost-center", "gpu-benchmarks")
            .containsEntry("team", "inference");
      }
    }
  }

  @Test
  void aTemplateTheOverlayCannotTakeKeepsTheOperatorFromStartingAndSaysWhy() throws Exception {
    Files.deleteIfExists(BROKEN_LOG);
    try (StandaloneApiServer apiServer = StandaloneApiServer.start()) {
      // a Helm upgrade that sets this never sees the new operator ready, and rolls back
      assertThatThrownBy(
              () ->
                  OperatorProcess.start(
                      apiServer.url(),
                      BROKEN_LOG,
                      OperatorJvm.OPTIONS,
                      Map.of(
                          "GPUCOMM_OPERATOR_RANK_POD_TEMPLATE",
                          chartRendering("{\"spec\":{\"hostPID\":true}}"))))
          .hasMessageContaining("the operator exited");
    }
    assertThat(Files.readString(BROKEN_LOG))
        .contains(
            "the operator's rank pod template cannot be used: runtime.podTemplate.spec.hostPID is"
                + " not supported in the pod template overlay");
  }

  private static String chartRendering(String json) {
    return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }
}
