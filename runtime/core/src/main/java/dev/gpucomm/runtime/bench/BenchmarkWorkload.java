package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.report.ReportMarkdown;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.util.LinkedHashMap;
import java.util.function.Function;

/** {@code spec.workload.kind: benchmark}: one validated sweep, reported by rank 0. */
public final class BenchmarkWorkload implements RankWorkload {
  private final Function<String, TuningTable> tuningTables;

  public BenchmarkWorkload(Function<String, TuningTable> tuningTables) {
    this.tuningTables = tuningTables;
  }

  @Override
  public WorkloadResult run(RankContext context) {
    BenchmarkSpec benchmark = context.job().job().getSpec().getWorkload().getBenchmark();
    return ReportedSweep.run(
            context,
            tuningTables,
            "benchmark",
            benchmark.getSeed(),
            benchmark.getDtype(),
            benchmark.getOutlierThresholdPercent() != null
                ? benchmark.getOutlierThresholdPercent()
                : CommJobDefaults.OUTLIER_THRESHOLD_PERCENT,
            (planner, seed) -> planner.plan(benchmark, seed))
        .map(BenchmarkWorkload::result)
        .orElseGet(WorkloadResult::none);
  }

  private static WorkloadResult result(ReportedSweep.Finished sweep) {
    String note =
        sweep.outcome().graphsTimed() || !sweep.plan().graphs()
            ? ""
            : "\n(" + sweep.outcome().graphNote() + ": eager times only)\n";
    return new WorkloadResult(
        ReportMarkdown.summary(sweep.report()) + note,
        new LinkedHashMap<>(ReportFiles.render(sweep.report())));
  }
}
