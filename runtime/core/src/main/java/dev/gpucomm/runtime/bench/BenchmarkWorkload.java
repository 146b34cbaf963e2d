package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.report.ReportMarkdown;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
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
    var topology = context.topology();
    long seed =
        SharedSeed.agree(
            benchmark.getSeed(),
            context.store(),
            "benchmark/seed",
            context.rank(),
            context.rendezvousTimeout());
    SweepPlan plan =
        new SweepPlanner(context.job().source(), context.device().kind(), context.communicator())
            .plan(benchmark, seed);
    AlgorithmHeuristic heuristic =
        JobHeuristic.create(
            context.job(), tuningTables, topology.worldSize(), benchmark.getDtype());
    String startedAt = Instant.now().toString();
    BenchmarkSweep.Outcome outcome =
        new BenchmarkSweep(
                context.device(),
                context.communicator(),
                context.store(),
                heuristic,
                context.progress(),
                context.rendezvousTimeout())
            .run(plan, "benchmark");
    if (!context.isRankZero()) {
      return WorkloadResult.none();
    }
    BenchmarkReport report =
        new BenchmarkReport(
            BenchmarkReport.SCHEMA_VERSION,
            context.job().name(),
            plan.collective(),
            plan.dtype(),
            plan.hiddenSize(),
            plan.inPlace(),
            topology.worldSize(),
            topology.localWorldSize(),
            context.device().kind().wireName(),
            context.device().name(),
            hostName(),
            heuristic.name(),
            startedAt,
            outcome.sizes());
    String note =
        outcome.graphsTimed() || !plan.graphs()
            ? ""
            : "\n(" + outcome.graphNote() + ": eager times only)\n";
    return new WorkloadResult(
        ReportMarkdown.summary(report) + note, new LinkedHashMap<>(ReportFiles.render(report)));
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
