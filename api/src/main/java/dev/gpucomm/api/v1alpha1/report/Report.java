package dev.gpucomm.api.v1alpha1.report;

/** What a job's report.json holds: a benchmark sweep or a host-IR program run. */
public sealed interface Report permits BenchmarkReport, ProgramReport {
  /** The report.json schema version this report was written with. */
  int schemaVersion();

  /** The CommJob's name. */
  String job();
}
