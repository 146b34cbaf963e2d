package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fused all-reduce + residual + RMSNorm sweep runs on two CPU rank processes end to end through
 * the CLI: every algorithm (and the heuristic's choice) is timed eagerly and from a graph and
 * validated against the float64 reference of the whole pattern, and report.json and report.md say
 * which pattern ran.
 */
class BenchFusedPatternIT {
  @TempDir Path dir;

  @Test
  void aResidualRmsNormSweepMeasuresEveryAlgorithmAndNamesThePattern() throws Exception {
    Path out = dir.resolve("reports").resolve("fused");

    CliRun run =
        CliRun.of(
            Map.of(),
            "bench",
            "--device",
            "cpu",
            "--world",
            "2",
            "--pattern",
            "allreduceResidualRmsNorm",
            "--tokens",
            "1,5",
            "--hidden",
            "72",
            "--iterations",
            "3",
            "--warmup",
            "1",
            "--out",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.path("pattern").asText()).isEqualTo("allreduceResidualRmsNorm");
    assertThat(report.path("sizes")).hasSize(2);
    JsonNode fiveTokens = report.path("sizes").get(1);
    assertThat(fiveTokens.path("bytes").asLong()).isEqualTo(5L * 72 * 2);
    assertThat(algorithms(fiveTokens)).contains("oneshot", "twoshot", "ring");
    for (JsonNode measurement : fiveTokens.path("measurements")) {
      assertThat(measurement.path("graphMicros").isNumber())
          .as("graph time of %s", measurement)
          .isTrue();
      assertThat(measurement.path("maxRelativeError").asDouble()).isBetween(0.0, 0.05);
    }
    assertThat(Files.readString(out.resolve("report.md")))
        .contains("allreduce + residual + RMSNorm (allreduceResidualRmsNorm)");
  }

  @Test
  void anFp8SweepWithRoundedAccumulationIsValidatedAfterDequantization() throws Exception {
    Path out = dir.resolve("reports").resolve("fused-fp8");

    CliRun run =
        CliRun.of(
            Map.of(),
            "bench",
            "--device",
            "cpu",
            "--world",
            "3",
            "--pattern",
            "allreduceResidualRmsNormFp8",
            "--fp8-scale",
            "0.01",
            "--no-fp32-accumulate",
            "--dtype",
            "fp16",
            "--algorithms",
            "oneshot,twoshot,ring",
            "--tokens",
            "4",
            "--hidden",
            "64",
            "--iterations",
            "2",
            "--warmup",
            "1",
            "--out",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.path("pattern").asText()).isEqualTo("allreduceResidualRmsNormFp8");
    assertThat(algorithms(report.path("sizes").get(0))).contains("oneshot", "twoshot", "ring");
  }

  @Test
  void aPlainSweepWritesNoPatternSoOlderReadersSeeTheSameReport() throws Exception {
    Path out = dir.resolve("reports").resolve("plain");

    CliRun run =
        CliRun.of(
            Map.of(),
            "bench",
            "--device",
            "cpu",
            "--world",
            "2",
            "--algorithms",
            "oneshot",
            "--sizes",
            "4K",
            "--iterations",
            "2",
            "--out",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.has("pattern")).isFalse();
  }

  @Test
  void aTuneOfTheFusedPatternWritesItsTableAndSaysWhatToCompareItWith() throws Exception {
    Path job = dir.resolve("tune-fused.yaml");
    Files.writeString(
        job,
        """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: tune-fused
        spec:
          worldSize: 2
          ranksPerPod: 2
          workload:
            kind: tune
            tune:
              dtype: bf16
              hiddenSize: 64
              tokens: [1, 8]
              algorithms: [oneshot, twoshot]
              warmupIterations: 1
              iterations: 3
              pattern: allreduceResidualRmsNorm
        """);
    Path out = dir.resolve("reports").resolve("tune-fused");

    CliRun run =
        CliRun.of(
            Map.of(), "tune", "-f", job.toString(), "--device", "cpu", "--out", out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("Measured with pattern allreduceResidualRmsNorm: compare its crossovers");
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    assertThat(report.path("pattern").asText()).isEqualTo("allreduceResidualRmsNorm");
    assertThat(algorithms(report.path("sizes").get(1))).containsExactly("oneshot", "twoshot");
    assertThat(out.resolve("tuning.json")).exists();
  }

  private static List<String> algorithms(JsonNode size) {
    List<String> names = new ArrayList<>();
    size.path("measurements").forEach(m -> names.add(m.path("algorithm").asText()));
    return names;
  }
}
