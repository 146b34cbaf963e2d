package dev.gpucomm.runtime.report.fetch;

import java.util.Arrays;
import java.util.Optional;

/** The forms {@code gpucomm report} prints a report in, and the results key each one comes from. */
public enum ReportFormat {
  MD("md", JobResults.REPORT_MARKDOWN),
  JSON("json", JobResults.REPORT_JSON),
  /** Derived from report.json: the results ConfigMap leaves report.csv out. */
  CSV("csv", JobResults.REPORT_JSON),
  SVG("svg", JobResults.LATENCY_SVG),
  /** Derived from report.json: nccl-tests' results table for one algorithm. */
  NCCL_TESTS("nccl-tests", JobResults.REPORT_JSON);

  private final String flag;
  private final String sourceKey;

  ReportFormat(String flag, String sourceKey) {
    this.flag = flag;
    this.sourceKey = sourceKey;
  }

  public String flag() {
    return flag;
  }

  /** The key of the results ConfigMap this form is read (or, for csv, derived) from. */
  public String sourceKey() {
    return sourceKey;
  }

  public static Optional<ReportFormat> fromFlag(String text) {
    return Arrays.stream(values()).filter(f -> f.flag.equals(text)).findFirst();
  }

  public static String flags() {
    return String.join("|", Arrays.stream(values()).map(ReportFormat::flag).toList());
  }
}
