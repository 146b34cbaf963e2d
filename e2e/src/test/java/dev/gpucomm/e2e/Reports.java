package dev.gpucomm.e2e;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.api.v1alpha1.report.ReportJson;

/**
 * Reads a results ConfigMap's report.json with the runtime's own reader, as gpucomm report does.
 */
final class Reports {
  private Reports() {}

  /** A benchmark sweep's report. */
  static BenchmarkReport benchmark(String reportJson) {
    Report report = ReportJson.parse(reportJson, "results report.json");
    if (report instanceof BenchmarkReport benchmark) {
      return benchmark;
    }
    throw new AssertionError(
        "expected a benchmark report, got " + report.getClass().getSimpleName());
  }

  /** A host-IR program's report. */
  static ProgramReport program(String reportJson) {
    Report report = ReportJson.parse(reportJson, "results report.json");
    if (report instanceof ProgramReport program) {
      return program;
    }
    throw new AssertionError("expected a program report, got " + report.getClass().getSimpleName());
  }
}
