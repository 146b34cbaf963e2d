package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * A benchmark report.json as CSV: one row per size and algorithm, with the columns of {@link
 * dev.gpucomm.runtime.report.Measurement} and whether the heuristic chose that algorithm.
 */
final class ReportCsv {
  static final List<String> COLUMNS =
      List.of(
          "collective",
          "dtype",
          "worldSize",
          "bytes",
          "tokens",
          "algorithm",
          "chosen",
          "eagerMicros",
          "graphMicros",
          "algBandwidthGBps",
          "busBandwidthGBps",
          "maxRelativeError",
          "iterations");
  private static final ObjectMapper JSON = new ObjectMapper();

  private ReportCsv() {}

  static String fromReportJson(String reportJson) {
    JsonNode report;
    try {
      report = JSON.readTree(reportJson);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "report.json is not valid JSON: " + e.getOriginalMessage());
    }
    if (!report.path("sizes").isArray()) {
      throw new IllegalArgumentException(
          "this report has no per-size results (not a benchmark sweep): use --format json or md");
    }
    StringBuilder csv = new StringBuilder(String.join(",", COLUMNS)).append('\n');
    for (JsonNode size : report.path("sizes")) {
      String chosen = size.path("chosen").asText("");
      for (JsonNode measurement : size.path("measurements")) {
        String algorithm = measurement.path("algorithm").asText();
        List<String> row =
            List.of(
                report.path("collective").asText(""),
                report.path("dtype").asText(""),
                report.path("worldSize").asText(""),
                size.path("bytes").asText(""),
                value(size.path("tokens")),
                algorithm,
                Boolean.toString(algorithm.equals(chosen)),
                value(measurement.path("eagerMicros")),
                value(measurement.path("graphMicros")),
                value(measurement.path("algBandwidthGBps")),
                value(measurement.path("busBandwidthGBps")),
                value(measurement.path("maxRelativeError")),
                value(measurement.path("iterations")));
        csv.append(String.join(",", row.stream().map(ReportCsv::quoted).toList())).append('\n');
      }
    }
    return csv.toString();
  }

  private static String value(JsonNode node) {
    return node.isMissingNode() || node.isNull() ? "" : node.asText();
  }

  private static String quoted(String field) {
    if (field.contains(",") || field.contains("\"") || field.contains("\n")) {
      return "\"" + field.replace("\"", "\"\"") + "\"";
    }
    return field;
  }
}
