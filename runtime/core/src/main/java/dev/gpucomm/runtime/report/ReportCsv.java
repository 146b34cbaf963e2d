package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.SizeComparison;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.api.v1alpha1.report.TimeBasis;
import java.util.StringJoiner;

/**
 * report.csv: one row per size × algorithm with both medians, nccl-tests bandwidths, the worst
 * relative error against the reference, and whether the heuristic chose it and whether it was the
 * fastest (graph time where measured, eager otherwise), and whether the calls ran in place (last,
 * so that tools reading the earlier columns by position keep working). Empty cells for values not
 * measured.
 */
public final class ReportCsv {
  public static final String HEADER =
      "collective,dtype,world_size,bytes,tokens,algorithm,eager_us,graph_us,algbw_GBps,"
          + "busbw_GBps,max_rel_error,iterations,chosen,best,in_place";

  private ReportCsv() {}

  public static String write(BenchmarkReport report) {
    StringBuilder csv = new StringBuilder(HEADER).append('\n');
    for (SizeResult size : report.sizes()) {
      var best = new SizeComparison(size, TimeBasis.GRAPH_WHERE_MEASURED).best();
      for (Measurement measurement : size.measurements()) {
        StringJoiner row = new StringJoiner(",");
        row.add(report.collective().wireName())
            .add(report.dtype().wireName())
            .add(Integer.toString(report.worldSize()))
            .add(Long.toString(size.bytes()))
            .add(size.tokens() == null ? "" : size.tokens().toString())
            .add(measurement.algorithm().wireName())
            .add(number(measurement.eagerMicros()))
            .add(measurement.graphMicros() == null ? "" : number(measurement.graphMicros()))
            .add(number(measurement.algBandwidthGBps()))
            .add(number(measurement.busBandwidthGBps()))
            .add(number(measurement.maxRelativeError()))
            .add(Integer.toString(measurement.iterations()))
            .add(Boolean.toString(measurement.algorithm() == size.chosen()))
            .add(
                Boolean.toString(
                    best.isPresent() && best.get().algorithm() == measurement.algorithm()))
            .add(Boolean.toString(report.inPlace()));
        csv.append(row).append('\n');
      }
    }
    return csv.toString();
  }

  private static String number(double value) {
    return Double.toString(value);
  }
}
