package dev.gpucomm.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the runtime's report.json (schema version 1) into status rows, with the runtime's own
 * definitions (its {@code StatusSummary}): each algorithm's time is its CUDA-graph median where one
 * was measured, else its eager median; the best is the fastest algorithm other than auto; the
 * speedup is NCCL's time (ring's, where NCCL was not measured) over the best's; bus bandwidth
 * follows nccl-tests. It reads the JSON tree rather than the runtime's classes, so that the
 * operator does not depend on the runtime.
 */
@ApplicationScoped
public class ReportSummaryReader {
  public static final int SCHEMA_VERSION = 1;
  private static final String AUTO = "auto";
  private static final String BENCHMARK = "benchmark";

  private final ObjectMapper mapper = new ObjectMapper();

  /** Reads the report in {@code json}; {@code source} names it in error messages. */
  public ReportSummary read(String json, String source) throws ReportFormatException {
    JsonNode root;
    try {
      root = mapper.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ReportFormatException(
          source + " is not JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""));
    }
    if (root == null || !root.isObject()) {
      throw new ReportFormatException(source + " is not a JSON object");
    }
    JsonNode version = root.path("schemaVersion");
    if (!version.isIntegralNumber() || version.asInt() < 1 || version.asInt() > SCHEMA_VERSION) {
      throw new ReportFormatException(
          "%s has schemaVersion %s; this operator reads 1 to %d"
              .formatted(source, version.isMissingNode() ? "none" : version, SCHEMA_VERSION));
    }
    // a program (host-IR) report has no sizes: nothing to summarize per size
    String kind = root.path("kind").asText(BENCHMARK);
    if (!kind.equals(BENCHMARK)) {
      return new ReportSummary(null, kind, List.of(), List.of());
    }
    String collective = root.path("collective").asText(null);
    JsonNode sizes = root.path("sizes");
    if (!sizes.isArray()) {
      throw new ReportFormatException(source + " has no sizes array");
    }
    double busFactor = busFactor(collective, root.path("worldSize").asInt(0));
    List<SizeSummary> rows = new ArrayList<>();
    List<AlgorithmFigure> figures = new ArrayList<>();
    for (int i = 0; i < sizes.size(); i++) {
      rows.add(
          readSize(sizes.get(i), collective, busFactor, source + " sizes[" + i + "]", figures));
    }
    return new ReportSummary(collective, setup(root, collective), rows, figures);
  }

  /**
   * "allreduce bf16 on 8 ranks (cuda, CUDA-graph times)", or "(..., in place)": what a baseline
   * must have measured too.
   */
  private static String setup(JsonNode root, String collective) {
    boolean graphs = false;
    for (JsonNode size : root.path("sizes")) {
      for (JsonNode measurement : size.path("measurements")) {
        graphs |= measurement.path("graphMicros").isNumber();
      }
    }
    return "%s %s on %s ranks (%s, %s times%s)"
        .formatted(
            collective,
            root.path("dtype").asText("?"),
            root.path("worldSize").asText("?"),
            root.path("device").asText("?"),
            graphs ? "CUDA-graph" : "eager",
            // absent from reports written before in-place runs existed: those were out of place
            root.path("inPlace").asBoolean(false) ? ", in place" : "");
  }

  private static SizeSummary readSize(
      JsonNode size,
      String collective,
      double busFactor,
      String where,
      List<AlgorithmFigure> figures)
      throws ReportFormatException {
    if (!size.path("bytes").canConvertToLong()) {
      throw new ReportFormatException(where + " has no bytes");
    }
    long bytes = size.get("bytes").asLong();
    String chosen = size.path("chosen").isTextual() ? size.get("chosen").asText() : null;
    JsonNode best = null;
    JsonNode auto = null;
    JsonNode chosenMeasurement = null;
    JsonNode nccl = null;
    JsonNode ring = null;
    JsonNode measurements = size.path("measurements");
    for (int i = 0; i < measurements.size(); i++) {
      JsonNode measurement = measurements.get(i);
      String algorithm = measurement.path("algorithm").asText("");
      if (!measurement.path("eagerMicros").isNumber()) {
        throw new ReportFormatException(where + " measurements[" + i + "] has no eagerMicros");
      }
      double micros = micros(measurement);
      figures.add(
          new AlgorithmFigure(
              bytes, algorithm, micros, busBandwidth(bytes, micros, busFactor, measurement)));
      switch (algorithm) {
        case "nccl" -> nccl = measurement;
        case "ring" -> ring = measurement;
        default -> {}
      }
      if (algorithm.equals(chosen)) {
        chosenMeasurement = measurement;
      }
      // auto runs one of the others, so it never counts as the best algorithm
      if (algorithm.equals(AUTO)) {
        auto = measurement;
      } else if (best == null || micros < micros(best)) {
        best = measurement;
      }
    }
    // ... unless it is all that was measured (a gate on what the heuristic picks)
    if (best == null) {
      best = auto;
    }
    SizeSummary row =
        new SizeSummary()
            .withCollective(collective)
            .withBytes(bytes)
            .withTokens(size.path("tokens").isInt() ? size.get("tokens").asInt() : null)
            .withChosen(chosen);
    if (best != null) {
      double bestMicros = micros(best);
      double bandwidth = busBandwidth(bytes, bestMicros, busFactor, best);
      row.withBest(best.path("algorithm").asText())
          .withLatencyMicros(bestMicros)
          .withBusBandwidthGBps(Double.isFinite(bandwidth) ? bandwidth : null);
      Optional.ofNullable(nccl != null ? nccl : ring)
          .ifPresent(reference -> row.withSpeedupVsNccl(micros(reference) / bestMicros));
    }
    if (chosenMeasurement != null) {
      row.withChosenLatencyMicros(micros(chosenMeasurement));
    }
    return row;
  }

  /** The CUDA-graph median where one was measured, the eager median otherwise. */
  private static double micros(JsonNode measurement) {
    JsonNode graph = measurement.path("graphMicros");
    return graph.isNumber() ? graph.asDouble() : measurement.path("eagerMicros").asDouble();
  }

  /**
   * nccl-tests' busbw for {@code bytes} in {@code micros}; the measurement's own figure where the
   * collective or world size is unknown.
   */
  private static double busBandwidth(
      long bytes, double micros, double busFactor, JsonNode measurement) {
    if (busFactor > 0 && micros > 0) {
      return bytes / (micros * 1e3) * busFactor;
    }
    return measurement.path("busBandwidthGBps").asDouble(Double.NaN);
  }

  /**
   * nccl-tests' bus factor: all-reduce 2(n-1)/n; all-gather and reduce-scatter (n-1)/n; broadcast
   * and collective permute 1; 0 when unknown.
   */
  static double busFactor(String collective, int worldSize) {
    if (worldSize < 1 || collective == null) {
      return 0;
    }
    double ranks = worldSize;
    return Collective.fromWireName(collective)
        .map(
            c ->
                switch (c) {
                  case ALLREDUCE -> 2 * (ranks - 1) / ranks;
                  case ALLGATHER, REDUCESCATTER -> (ranks - 1) / ranks;
                  case BROADCAST, COLLECTIVEPERMUTE -> 1.0;
                })
        .orElse(0.0);
  }
}
