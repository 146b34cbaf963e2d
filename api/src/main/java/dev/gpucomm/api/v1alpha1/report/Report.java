package dev.gpucomm.api.v1alpha1.report;

/** What a job's report.json holds: a benchmark sweep, a host-IR program run or a fabric sweep. */
public sealed interface Report permits BenchmarkReport, ProgramReport, FabricReport {
  /** The report.json schema version this report was written with. */
  int schemaVersion();

  /** The CommJob's name. */
  String job();
}
