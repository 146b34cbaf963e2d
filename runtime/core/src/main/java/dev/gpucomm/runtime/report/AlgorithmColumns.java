package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.NotMeasured;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The algorithms a report measured, in the order the sweep first ran them: its table columns. */
final class AlgorithmColumns {
  private AlgorithmColumns() {}

  static List<Algorithm> of(BenchmarkReport report) {
    Set<Algorithm> seen = new LinkedHashSet<>();
    for (SizeResult size : report.sizes()) {
      for (Measurement measurement : size.measurements()) {
        seen.add(measurement.algorithm());
      }
      for (NotMeasured skipped : size.notMeasured()) {
        seen.add(skipped.algorithm());
      }
    }
    return List.copyOf(seen);
  }
}
