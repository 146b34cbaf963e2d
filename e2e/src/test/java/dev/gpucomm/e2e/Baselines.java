package dev.gpucomm.e2e;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;

/**
 * Baseline ConfigMaps for the regression gate: a report.json in the runtime's format whose every
 * size took {@code micros}, so that any real run is slower (tiny) or faster (huge) than it.
 */
final class Baselines {
  private Baselines() {}

  static ConfigMap configMap(String name, List<Long> sizes, double micros) {
    List<SizeResult> results =
        sizes.stream()
            .map(
                bytes ->
                    new SizeResult(
                        bytes,
                        null,
                        Algorithm.RING,
                        "baseline",
                        List.of(
                            new Measurement(
                                Algorithm.RING,
                                micros,
                                null,
                                bytes / micros / 1e3,
                                bytes / micros / 1e3,
                                0,
                                5))))
            .toList();
    BenchmarkReport report =
        new BenchmarkReport(
            BenchmarkReport.SCHEMA_VERSION,
            name,
            Collective.ALLREDUCE,
            DType.BF16,
            JobManifests.SWEEP_HIDDEN,
            false,
            2,
            1,
            "cpu",
            "baseline",
            "baseline",
            "trtllm",
            "2026-01-01T00:00:00Z",
            results);
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToData("report.json", ReportJson.write(report))
        .build();
  }
}
