package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.nio.file.Path;
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

  /** What the chart renders from runtime.podTemplate (toJson of the value). */
  private static final String CHART_TEMPLATE =
      """
      {"metadata":{"labels":{"cost-center":"gpu-benchmarks"}},\
      "spec":{"priorityClassName":"gpu-batch",\
      "tolerations":[{"effect":"NoSchedule","key":"nvidia.com/gpu","operator":"Exists"}]}}""";

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
}
