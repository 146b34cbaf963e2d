package dev.gpucomm.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.SizeSummary;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the runtime's report.json (schema version 1: {@code sizes[]} of {@code {bytes, tokens,
 * chosen, measurements[] {algorithm, eagerMicros, graphMicros, busBandwidthGBps}}}) into status
 * rows. It reads the JSON tree rather than the runtime's classes, so that the operator does not
 * depend on the runtime.
 */
@ApplicationScoped
public class ReportSummaryReader {
  public static final int SCHEMA_VERSION = 1;
  private static final String AUTO = "auto";

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
    int schemaVersion = root.path("schemaVersion").asInt(-1);
    if (schemaVersion != SCHEMA_VERSION) {
      throw new ReportFormatException(
          "%s has schemaVersion %s; this operator reads %d"
              .formatted(source, root.path("schemaVersion"), SCHEMA_VERSION));
    }
    String collective = root.path("collective").asText(null);
    JsonNode sizes = root.path("sizes");
    if (!sizes.isArray()) {
      throw new ReportFormatException(source + " has no sizes array");
    }
    List<SizeSummary> rows = new ArrayList<>();
    List<AlgorithmFigure> figures = new ArrayList<>();
    for (int i = 0; i < sizes.size(); i++) {
      rows.add(readSize(sizes.get(i), collective, source + " sizes[" + i + "]", figures));
    }
    return new ReportSummary(collective, rows, figures);
  }

  private static SizeSummary readSize(
      JsonNode size, String collective, String where, List<AlgorithmFigure> figures)
      throws ReportFormatException {
    if (!size.path("bytes").canConvertToLong()) {
      throw new ReportFormatException(where + " has no bytes");
    }
    long bytes = size.get("bytes").asLong();
    String chosen = size.path("chosen").asText(null);
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
      figures.add(
          new AlgorithmFigure(
              bytes,
              algorithm,
              bestMicros(measurement),
              measurement.path("busBandwidthGBps").asDouble(Double.NaN)));
      switch (algorithm) {
        case AUTO -> auto = measurement;
        case "nccl" -> nccl = measurement;
        case "ring" -> ring = measurement;
        default -> {}
      }
      if (algorithm.equals(chosen)) {
        chosenMeasurement = measurement;
      }
      // auto runs one of the others, so it never counts as the best algorithm
      if (!algorithm.equals(AUTO) && (best == null || bestMicros(measurement) < bestMicros(best))) {
        best = measurement;
      }
    }
    SizeSummary row =
        new SizeSummary()
            .withCollective(collective)
            .withBytes(bytes)
            .withTokens(size.path("tokens").isInt() ? size.get("tokens").asInt() : null)
            .withChosen(chosen);
    if (best != null) {
      double bestMicros = bestMicros(best);
      row.withBest(best.path("algorithm").asText())
          .withLatencyMicros(bestMicros)
          .withBusBandwidthGBps(
              best.path("busBandwidthGBps").isNumber()
                  ? best.get("busBandwidthGBps").asDouble()
                  : null);
      JsonNode reference = nccl != null ? nccl : ring;
      if (reference != null) {
        row.withSpeedupVsNccl(bestMicros(reference) / bestMicros);
      }
    }
    // auto's own timing is what users of auto get; without it, the chosen algorithm's timing
    JsonNode chosenTiming = auto != null ? auto : chosenMeasurement;
    if (chosenTiming != null) {
      row.withChosenLatencyMicros(bestMicros(chosenTiming));
    }
    return row;
  }

  /** Graph replay when measured and faster, else eager: the runtime's ranking time. */
  private static double bestMicros(JsonNode measurement) {
    double eager = measurement.path("eagerMicros").asDouble();
    JsonNode graph = measurement.path("graphMicros");
    return graph.isNumber() ? Math.min(graph.asDouble(), eager) : eager;
  }
}
