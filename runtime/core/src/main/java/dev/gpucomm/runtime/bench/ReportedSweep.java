package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.RankFabric;
import dev.gpucomm.api.v1alpha1.report.RankIdentity;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.fabric.LocalHost;
import dev.gpucomm.runtime.fabric.RankFabricGather;
import dev.gpucomm.runtime.fabric.RankIdentities;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.TuningCurve;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.workload.RankContext;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One rank's part of a validated sweep and, on rank 0, its report: what the benchmark and tune
 * workloads share, apart from how they plan the sweep and what they publish besides the report.
 */
final class ReportedSweep {
  private ReportedSweep() {}

  /** Rank 0's view of a finished sweep. */
  record Finished(SweepPlan plan, BenchmarkSweep.Outcome outcome, BenchmarkReport report) {}

  /**
   * Agrees on the seed ({@code requestedSeed}, or one rank 0 draws, under {@code label/seed}),
   * plans the sweep with {@code planner}, runs it with the job's heuristic for {@code dtype} (with
   * rank 0's tuning table and device model) deciding the automatic choices, and returns the result
   * on rank 0; the other ranks get none. The report flags a rank slower than its peers by more than
   * {@code outlierThresholdPercent}.
   */
  static Optional<Finished> run(
      RankContext context,
      Function<String, TuningTable> tuningTables,
      String label,
      Long requestedSeed,
      DType dtype,
      double outlierThresholdPercent,
      BiFunction<SweepPlanner, Long, SweepPlan> planner) {
    var topology = context.topology();
    long seed =
        SharedSeed.agree(
            requestedSeed,
            context.store(),
            label + "/seed",
            context.rank(),
            context.rendezvousTimeout());
    SweepPlan plan =
        planner.apply(
            new SweepPlanner(
                context.job().source(), context.device().kind(), context.communicator()),
            seed);
    AlgorithmHeuristic heuristic =
        JobHeuristic.create(
            context.job(),
            SharedTuningTables.fromRankZero(
                tuningTables,
                context.store(),
                label + "/tuning-table",
                context.rank(),
                context.rendezvousTimeout()),
            plan.collective(),
            topology.worldSize(),
            dtype,
            SharedDeviceName.agree(
                TuningCurve.modelOf(context.device().kind().wireName(), context.device().name()),
                context.store(),
                label + "/device",
                context.rank(),
                context.rendezvousTimeout()));
    String startedAt = Instant.now().toString();
    BenchmarkSweep.Outcome outcome =
        new BenchmarkSweep(
                context.device(),
                context.communicator(),
                context.store(),
                heuristic,
                context.progress(),
                context.rendezvousTimeout())
            .run(plan, label);
    List<RankFabric> fabric =
        RankFabricGather.gather(
            usesNccl(context.communicator()) ? context.communicator().fabrics() : List.of(),
            context.store(),
            label + "/fabric",
            context.rank(),
            topology.worldSize(),
            context.rendezvousTimeout());
    List<RankIdentity> identities =
        RankIdentities.gather(
            context.store(),
            label + "/identity",
            RankIdentities.local(
                context.rank(), context.device(), context.communicator(), System.getenv()),
            topology.worldSize(),
            context.rendezvousTimeout());
    if (!context.isRankZero()) {
      return Optional.empty();
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
            LocalHost.name(),
            heuristic.name(),
            startedAt,
            outcome.sizes(),
            identities,
            outcome.rankTimings(),
            outlierThresholdPercent,
            fabric,
            plan.fused() ? plan.epilogue().pattern() : null);
    return Optional.of(new Finished(plan, outcome, report));
  }

  /** Only NCCL's transports are recorded; the CPU backend's are its own. */
  private static boolean usesNccl(Communicator communicator) {
    return communicator.allReduceAlgorithms().contains(Algorithm.NCCL);
  }
}
