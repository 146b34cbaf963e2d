package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.Decision;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import dev.gpucomm.runtime.report.HumanUnits;
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
 * place with the algorithms that allow it, and every fused all-reduce pattern with every algorithm
 * that runs it, summing in fp32 and in the element type. Runs each case as a one-iteration sweep
 * with a graph, so the same validation as a benchmark applies.
 */
public final class SelfTestWorkload implements RankWorkload {
  /** 16 B is one vector; 48 B and 4112 B (257 vectors) leave remainders for any world size. */
  static final List<Long> SIZES = List.of(16L, 48L, 4112L, 65552L);

  /**
   * All-gather and reduce-scatter also run these sizes in this order: one that the CUDA kernels
   * take in pipelined rounds (17 MiB, above the 8 MiB single pass: two all-gather rounds, three
   * reduce-scatter rounds), one that they take in a single pass with barriers (768 KiB, above the
   * LL limit of 512 KiB), down to two that the LL kernels cut differently among their blocks, so
   * that each kernel follows another's epochs and a line one block wrote in one call is waited for
   * by another block in the next. A communicator that cannot take a size in one piece skips it.
   */
  static final List<Long> KERNEL_SWITCH_SIZES = List.of(17L << 20, 786432L, 8192L, 2048L);

  /** All-reduce is checked out of place and, with the algorithms that allow it, in place. */
  private static final boolean[] IN_PLACE_BOTH = {false, true};

  private static final boolean[] OUT_OF_PLACE = {false};

  /**
   * Token counts of the fused patterns: one row, fewer rows than most worlds, more rows than any
   * world that do not divide among its ranks, and more rows than a CUDA grid has blocks (132), so
   * that blocks of the CUDA kernels take several rows each.
   */
  static final List<Integer> FUSED_TOKENS = List.of(1, 3, 13, 301);

  /**
   * The decode shapes of a tensor-parallel layer in bf16, with and without fp32 accumulation: 128
   * and 256 tokens of hidden 8192, where the CUDA fused two-shot gives every row a block of its
   * own, on the fixed grid and on its wide grid of twice the blocks (rows of 1024 vectors; of the
   * rows of 136 elements only fp32's widen, since bf16 and fp16 rows are one warp's, which cannot
   * be halved), and on two ranks reduces each rank's own rows in their blocks.
   */
  static final List<Integer> DECODE_TOKENS = List.of(128, 256);

  static final int DECODE_HIDDEN_SIZE = 8192;

  /** An odd number of 16-byte vectors per row in every dtype, so no row splits evenly in lanes. */
  static final int FUSED_HIDDEN_SIZE = 136;

  /** Small enough that some FP8 outputs saturate at ±448 · scale and others are subnormal. */
  static final float FUSED_FP8_SCALE = 0.004f;

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

  /**
   * Every fused pattern × dtype × accumulation with every algorithm that runs it, then the decode
   * shape; case count.
   */
  private static int fusedPatterns(
      RankContext context, FusedAllReduce fused, long seed, List<String> lines) {
    List<Algorithm> algorithms =
        CollectiveAlgorithms.inReportOrder(
            CollectiveAlgorithms.fusedAvailable(context.communicator(), fused));
    if (algorithms.isEmpty()) {
      return 0;
    }
    int cases = 0;
    // Each plan's seed counts plans, not cases: only rank 0 learns which cases did not run, so a
    // count of the cases run would give the ranks different inputs for every plan after one.
    int plans = 0;
    for (AllReducePattern pattern : AllReducePattern.values()) {
      if (!pattern.normalizes()) {
        continue;
      }
      for (DType dtype : DType.values()) {
        for (boolean fp32Accumulate : new boolean[] {true, false}) {
          NormEpilogue epilogue =
              new NormEpilogue(
                  pattern,
                  FUSED_HIDDEN_SIZE,
                  NormEpilogue.DEFAULT_EPSILON,
                  FUSED_FP8_SCALE,
                  fp32Accumulate);
          cases +=
              checkFused(
                  context, algorithms, epilogue, dtype, FUSED_TOKENS, seed + plans++, "", lines);
        }
      }
    }
    for (boolean fp32Accumulate : new boolean[] {true, false}) {
      NormEpilogue decode =
          new NormEpilogue(
              AllReducePattern.ALLREDUCE_RESIDUAL_RMS_NORM,
              DECODE_HIDDEN_SIZE,
              NormEpilogue.DEFAULT_EPSILON,
              FUSED_FP8_SCALE,
              fp32Accumulate);
      cases +=
          checkFused(
              context,
              algorithms,
              decode,
              DType.BF16,
              DECODE_TOKENS,
              seed + plans++,
              " (decode shape)",
              lines);
    }
    return cases;
  }

  /**
   * Checks the fused {@code epilogue} in {@code dtype} at {@code tokens} rows with every algorithm
   * and adds its table row (the pattern, then {@code shape}); returns the cases checked.
   */
  private static int checkFused(
      RankContext context,
      List<Algorithm> algorithms,
      NormEpilogue epilogue,
      DType dtype,
      List<Integer> tokens,
      long seed,
      String shape,
      List<String> lines) {
    AllReducePattern pattern = epilogue.pattern();
    boolean fp32Accumulate = epilogue.fp32Accumulate();
    int hidden = epilogue.hiddenSize();
    List<SweepPoint> points = new ArrayList<>();
    for (int rows : tokens) {
      points.add(
          new SweepPoint((long) rows * hidden * dtype.bytes(), rows, "selftest tokens " + rows));
    }
    SweepPlan plan =
        new SweepPlan(
            Collective.ALLREDUCE,
            dtype,
            hidden,
            points,
            algorithms,
            false,
            0,
            1,
            true,
            false,
            seed,
            "selftest algorithms",
            epilogue);
    context
        .progress()
        .scope(
            pattern.wireName()
                + shape
                + " · "
                + dtype
                + (fp32Accumulate ? " · fp32 accumulate" : ""));
    BenchmarkSweep.Outcome outcome =
        checkingSweep(context)
            .run(
                plan,
                "selftest/"
                    + pattern.wireName()
                    + (fp32Accumulate ? "-fp32/" : "-rounded/")
                    + dtype
                    + (shape.isEmpty() ? "" : "-" + hidden));
    int notRun = 0;
    for (SizeResult size : outcome.sizes()) {
      notRun += size.notMeasured().size();
    }
    lines.add(
        "| allreduce + "
            + pattern.wireName()
            + shape
            + (fp32Accumulate ? "" : " (dtype sums)")
            + " | "
            + dtype
            + " | "
            + names(algorithms)
            + " | "
            + points.size()
            + " | ok"
            + (notRun > 0 ? " (" + notRun + " not run here)" : "")
            + " |");
    return points.size() * algorithms.size() - notRun;
  }

  /**
   * Checks {@code collective} in {@code dtype} at {@code points} with every algorithm, under the
   * progress scope and table row {@code label}; returns the cases checked.
   */
  private static int checkCollective(
      RankContext context,
      Collective collective,
      String label,
      DType dtype,
      List<SweepPoint> points,
      List<Algorithm> algorithms,
      boolean inPlace,
      long seed,
      String name,
      List<String> lines) {
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
            seed,
            "selftest algorithms");
    context.progress().scope(label + " · " + dtype);
    checkingSweep(context).run(plan, name);
    lines.add(
        "| "
            + label
            + " | "
            + dtype
            + " | "
            + names(algorithms)
            + " | "
            + points.size()
            + " | ok |");
    return points.size() * algorithms.size();
  }

  /**
   * A sweep for checking results: without the CPU backend's warm-up until times settle, and with a
   * first-point warm-up bounded by bytes.
   */
  private static BenchmarkSweep checkingSweep(RankContext context) {
    return new BenchmarkSweep(
            context.device(),
            context.communicator(),
            context.store(),
            FIRST_AVAILABLE,
            context.progress(),
            context.rendezvousTimeout())
        .checkingOnly();
  }

  private static String names(List<Algorithm> algorithms) {
    return String.join(", ", algorithms.stream().map(Algorithm::wireName).toList());
  }

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
          // All-reduce takes every size, also above the communicator's peer memory, which it runs
          // in passes through it: a small buffer (GPUCOMM_PEER_BUFFER_BYTES) checks the passes.
          // Another collective skips a size its peer memory cannot take in one piece; without
          // peer memory (0) its algorithms (NCCL) take every size.
          long room = context.communicator().maxPeerMemoryBytes(collective);
          List<SweepPoint> points = new ArrayList<>();
          for (long bytes : SIZES) {
            if (collective == Collective.ALLREDUCE
                || room == 0
                || bytes <= room / context.topology().worldSize()) {
              points.add(new SweepPoint(bytes, null, "selftest size " + bytes));
            }
          }
          // Every collective and dtype sweeps the same sizes: say which one a line belongs to.
          cases +=
              checkCollective(
                  context,
                  collective,
                  collective + (inPlace ? " (in place)" : ""),
                  dtype,
                  points,
                  algorithms,
                  inPlace,
                  seed + cases,
                  "selftest/" + collective + (inPlace ? "-in-place/" : "/") + dtype,
                  lines);
        }
      }
    }
    for (Collective collective : List.of(Collective.ALLGATHER, Collective.REDUCESCATTER)) {
      List<Algorithm> algorithms =
          CollectiveAlgorithms.inReportOrder(
              CollectiveAlgorithms.available(context.communicator(), collective, false));
      if (algorithms.isEmpty()) {
        continue;
      }
      // A communicator whose peer memory holds less (the CPU backend's staging area) skips the
      // sizes it cannot take in one piece; one without peer memory (0) takes every size.
      long room = context.communicator().maxPeerMemoryBytes(collective);
      List<SweepPoint> points = new ArrayList<>();
      for (long bytes : KERNEL_SWITCH_SIZES) {
        if (room == 0 || bytes <= room / context.topology().worldSize()) {
          points.add(new SweepPoint(bytes, null, "selftest size " + bytes));
        }
      }
      cases +=
          checkCollective(
              context,
              collective,
              collective + " (sizes falling across kernels)",
              DType.BF16,
              points,
              algorithms,
              false,
              seed + cases,
              "selftest/" + collective + "-falling/bf16",
              lines);
    }
    if (context.communicator() instanceof FusedAllReduce fused) {
      cases += fusedPatterns(context, fused, seed + cases, lines);
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
        .append(HumanUnits.count(context.topology().worldSize(), "rank"))
        .append(" (")
        .append(context.device().name())
        .append("), each validated on every rank against a float64 reference\n");
    return new WorkloadResult(table.toString(), Map.of());
  }
}
