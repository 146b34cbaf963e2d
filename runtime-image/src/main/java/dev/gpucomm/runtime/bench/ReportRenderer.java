package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.report.BenchmarkReport;
import java.util.Map;

/** Turns a benchmark report into the files published with it and the table shown at the end. */
public interface ReportRenderer {
  /** File name (report.json, report.md, ...) to content. */
  Map<String, String> files(BenchmarkReport report);

  /** The Markdown results table printed when the job finishes. */
  String summary(BenchmarkReport report);
}
