package dev.gpucomm.runtime.hostir.programs;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.api.v1alpha1.report.ProgramTimes;

/** The job report (report.json, kind program) of a program workload's result. */
final class ProgramReports {
  private ProgramReports() {}

  static ProgramReport of(
      ProgramResult result, String job, int ranksPerPod, String host, String startedAt) {
    FormTimes times = result.times();
    double maxRelativeError =
        result.ranks().stream()
            .mapToDouble(rank -> rank.validation().maxRelativeError())
            .max()
            .orElse(0);
    return new ProgramReport(
        ProgramReport.SCHEMA_VERSION,
        job,
        result.program(),
        result.passes(),
        result.worldSize(),
        ranksPerPod,
        result.device(),
        result.deviceName(),
        host,
        startedAt,
        DType.fromWireName(result.dtype()).orElseThrow(),
        result.m(),
        result.n(),
        result.k(),
        result.chunks(),
        result.streams(),
        result.iterations(),
        new ProgramTimes(
            times.pipelinedMillis(),
            times.unpipelinedMillis(),
            times.computeOnlyMillis(),
            times.communicationOnlyMillis(),
            result.pipelinedTflops() == null ? 0 : result.pipelinedTflops()),
        maxRelativeError,
        result.smPartition() == null
            ? null
            : "pipelined run: " + result.smPartition().description());
  }
}
