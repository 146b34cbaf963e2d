package dev.gpucomm.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.runtime.report.BenchmarkReport;
import dev.gpucomm.runtime.report.Report;
import dev.gpucomm.runtime.report.ReportJson;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Reads a results ConfigMap's report.json. */
final class Reports {
  private Reports() {}

  /** A benchmark's report, with the runtime's own reader (as gpucomm report reads it). */
  static BenchmarkReport benchmark(String reportJson) {
    Report report = ReportJson.parse(reportJson, "results report.json");
    if (report instanceof BenchmarkReport benchmark) {
      return benchmark;
    }
    throw new AssertionError(
        "expected a benchmark report, got " + report.getClass().getSimpleName());
  }

  /** Any report as a JSON tree, for the fields a scenario is about. */
  static JsonNode json(String reportJson) {
    try {
      return new ObjectMapper().readTree(reportJson);
    } catch (IOException e) {
      throw new UncheckedIOException("report.json is not JSON", e);
    }
  }
}
