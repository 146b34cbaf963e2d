package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.report.ReportMarkdown;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code spec.workload.kind: tune}: a sweep of its collective (all-reduce, all-gather or
 * reduce-scatter) over the candidate algorithms whose medians become a {@link TuningTable} (the
 * crossover sizes the {@code measured} heuristic reads), published as {@value #TABLE_FILE} next to
 * the sweep's report. A tune of a fused all-reduce pattern measures the same candidates with the
 * pattern around each call; its table shows whether the pattern moves the crossovers of the plain
 * all-reduce's, which the heuristics read.
 */
public final class TuneWorkload implements RankWorkload {
  /** File (and ConfigMap key) of the table. */
  public static final String TABLE_FILE = "tuning.json";

  private final Function<String, TuningTable> tuningTables;

  public TuneWorkload(Function<String, TuningTable> tuningTables) {
    this.tuningTables = tuningTables;
  }

  @Override
  public WorkloadResult run(RankContext context) {
    TuneSpec tune = context.job().job().getSpec().getWorkload().getTune();
    // The decisions in the sweep's report are the job's heuristic's, for comparison with the table.
    return ReportedSweep.run(
            context,
            tuningTables,
            "tune",
            null,
            tune.getDtype(),
            CommJobDefaults.OUTLIER_THRESHOLD_PERCENT,
            (planner, seed) -> planner.plan(tune, seed))
        .map(sweep -> result(tune, context.job().name(), sweep.report()))
        .orElseGet(WorkloadResult::none);
  }

  private static WorkloadResult result(TuneSpec tune, String jobName, BenchmarkReport report) {
    String tableName = tune.getTableName() != null ? tune.getTableName() : jobName;
    TuningTable table = TuningTable.fromReports(tableName, List.of(report));
    Map<String, String> files = new LinkedHashMap<>(ReportFiles.render(report));
    files.put(TABLE_FILE, TuningTableJson.write(table));
    return new WorkloadResult(
        ReportMarkdown.summary(report)
            + "\nTuning table '"
            + tableName
            + "' ("
            + TABLE_FILE
            + "): "
            + table.curves().size()
            + " curve(s)\n"
            + (report.fused()
                ? "Measured with pattern "
                    + report.pattern().wireName()
                    + ": compare its crossovers with a plain all-reduce tune's; the heuristics"
                    + " read plain all-reduce tables.\n"
                : ""),
        files);
  }
}
