package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.Decision;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code gpucomm selftest}: every collective with every algorithm the communicator offers for it,
 * in every dtype, at sizes that include odd multiples of 16 bytes (so that per-rank slices do not
 * divide evenly), each checked against the float64 reference on every rank; all-reduce also in
 * place with the algorithms that allow it. Runs each case as a one-iteration sweep with a graph, so
 * the same validation as a benchmark applies.
 */
public final class SelfTestWorkload implements RankWorkload {
  /** 16 B is one vector; 48 B and 4112 B (257 vectors) leave remainders for any world size. */
  static final List<Long> SIZES = List.of(16L, 48L, 4112L, 65552L);

  /** All-reduce is checked out of place and, with the algorithms that allow it, in place. */
  private static final boolean[] IN_PLACE_BOTH = {false, true};

  private static final boolean[] OUT_OF_PLACE = {false};

  /** The algorithm named, whatever the size: selftest needs no heuristic. */
  private static final AlgorithmHeuristic FIRST_AVAILABLE =
      new AlgorithmHeuristic() {
        @Override
        public String name() {
          return "none";
        }

        @Override
        public Decision choose(SizeQuery query) {
          return new Decision(
              query.available().stream().findFirst().orElse(Algorithm.NCCL), "selftest");
        }
      };

  @Override
  public WorkloadResult run(RankContext context) {
    long seed =
        SharedSeed.agree(
            null, context.store(), "selftest/seed", context.rank(), context.rendezvousTimeout());
    List<String> lines = new ArrayList<>();
    int cases = 0;
    for (Collective collective : Collective.values()) {
      for (boolean inPlace : collective == Collective.ALLREDUCE ? IN_PLACE_BOTH : OUT_OF_PLACE) {
        List<Algorithm> algorithms =
            CollectiveAlgorithms.inReportOrder(
                CollectiveAlgorithms.available(context.communicator(), collective, inPlace));
        if (algorithms.isEmpty()) {
          continue;
        }
        for (DType dtype : DType.values()) {
          List<SweepPoint> points = new ArrayList<>();
          for (long bytes : SIZES) {
            if (collective != Collective.ALLREDUCE
                || bytes <= context.communicator().maxPeerMemoryBytes()) {
              points.add(new SweepPoint(bytes, null, "selftest size " + bytes));
            }
          }
          SweepPlan plan =
              new SweepPlan(
                  collective,
                  dtype,
                  1,
                  points,
                  algorithms,
                  false,
                  0,
                  1,
                  true,
                  inPlace,
                  seed + cases,
                  "selftest algorithms");
          // Every collective and dtype sweeps the same sizes: say which one a line belongs to.
          context.progress().scope(collective + (inPlace ? " (in place)" : "") + " · " + dtype);
          new BenchmarkSweep(
                  context.device(),
                  context.communicator(),
                  context.store(),
                  FIRST_AVAILABLE,
                  context.progress(),
                  context.rendezvousTimeout())
              .run(plan, "selftest/" + collective + (inPlace ? "-in-place/" : "/") + dtype);
          int checked = points.size() * algorithms.size();
          cases += checked;
          lines.add(
              "| "
                  + collective
                  + (inPlace ? " (in place)" : "")
                  + " | "
                  + dtype
                  + " | "
                  + String.join(", ", algorithms.stream().map(Algorithm::wireName).toList())
                  + " | "
                  + points.size()
                  + " | ok |");
        }
      }
    }
    context.progress().scope("");
    if (!context.isRankZero()) {
      return WorkloadResult.none();
    }
    StringBuilder table = new StringBuilder();
    table.append("| collective | dtype | algorithms | sizes | result |\n");
    table.append("|---|---|---|---|---|\n");
    lines.forEach(line -> table.append(line).append('\n'));
    table
        .append("\nselftest passed: ")
        .append(cases)
        .append(" cases on ")
        .append(context.topology().worldSize())
        .append(context.topology().worldSize() == 1 ? " rank (" : " ranks (")
        .append(context.device().name())
        .append("), each validated on every rank against a float64 reference\n");
    return new WorkloadResult(table.toString(), Map.of());
  }
}
