package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.NotMeasured;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.heuristic.AlgorithmHeuristic;
import dev.gpucomm.runtime.heuristic.Decision;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import dev.gpucomm.runtime.heuristic.TrtllmHeuristic;
import dev.gpucomm.runtime.report.ProgressDisplay;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The benchmark runner on the CPU backend, with ranks as threads. */
@Timeout(120)
class BenchmarkSweepTest {
  private static final Duration PEERS = Duration.ofSeconds(20);

  private static SweepPlan plan(
      Collective collective,
      DType dtype,
      List<Long> sizes,
      List<Algorithm> algorithms,
      boolean auto) {
    return plan(collective, dtype, sizes, algorithms, auto, false);
  }

  private static SweepPlan plan(
      Collective collective,
      DType dtype,
      List<Long> sizes,
      List<Algorithm> algorithms,
      boolean auto,
      boolean inPlace) {
    List<SweepPoint> points =
        sizes.stream().map(bytes -> new SweepPoint(bytes, null, "sizes")).toList();
    return new SweepPlan(
        collective,
        dtype,
        8192,
        points,
        algorithms,
        auto,
        1,
        3,
        true,
        inPlace,
        1234L,
        "algorithms");
  }

  private static List<BenchmarkSweep.Outcome> sweep(int world, SweepPlan plan) {
    return ThreadRanks.run(
        world,
        rank ->
            new BenchmarkSweep(
                    rank.device(),
                    rank.communicator(),
                    rank.store(),
                    new TrtllmHeuristic(),
                    ProgressDisplay.silent(),
                    PEERS)
                .run(plan, "test"));
  }

  /** The sweep on ranks whose communicator has a bug planted in {@code broken}. */
  private static List<BenchmarkSweep.Outcome> sweepWithBug(
      int world, SweepPlan plan, Algorithm broken, long elementIndex, boolean skip) {
    return ThreadRanks.run(
        world,
        rank ->
            new BenchmarkSweep(
                    rank.device(),
                    new CorruptingCommunicator(
                        rank.communicator(), rank.device(), broken, elementIndex, skip),
                    rank.store(),
                    new TrtllmHeuristic(),
                    ProgressDisplay.silent(),
                    PEERS)
                .run(plan, "test"));
  }

  @Test
  void everyAlgorithmIsMeasuredValidatedAndGatheredOnRankZero() {
    SweepPlan plan =
        plan(
            Collective.ALLREDUCE,
            DType.BF16,
            List.of(48L, 4112L),
            List.of(Algorithm.RING, Algorithm.ONESHOT, Algorithm.TWOSHOT),
            true);

    List<BenchmarkSweep.Outcome> outcomes = sweep(3, plan);

    List<SizeResult> sizes = outcomes.getFirst().sizes();
    assertThat(outcomes.get(1).sizes()).as("only rank 0 reports").isEmpty();
    assertThat(sizes).extracting(SizeResult::bytes).containsExactly(48L, 4112L);
    for (SizeResult size : sizes) {
      assertThat(size.measurements())
          .extracting(Measurement::algorithm)
          .containsExactly(Algorithm.RING, Algorithm.ONESHOT, Algorithm.TWOSHOT);
      assertThat(size.chosen()).as("trtllm at a small size").isEqualTo(Algorithm.ONESHOT);
      for (Measurement m : size.measurements()) {
        assertThat(m.eagerMicros()).isPositive();
        assertThat(m.graphMicros()).isNotNull().isPositive();
        assertThat(m.iterations()).isEqualTo(3);
        assertThat(m.busBandwidthGBps())
            .isCloseTo(
                m.algBandwidthGBps() * 2 * 2 / 3,
                org.assertj.core.data.Percentage.withPercentage(1e-6));
        assertThat(m.maxRelativeError())
            .as("bf16 sums round")
            .isPositive()
            .isLessThan(ElementBound.BF16_SUM_OF_THREE);
      }
    }
  }

  @Test
  void ranksOnGpusOfTwoGenerationsAllChooseByRankZerosComputeCapability() {
    SweepPlan plan =
        plan(Collective.ALLREDUCE, DType.BF16, List.of(4096L), List.of(Algorithm.ONESHOT), true);
    Map<Integer, Optional<ComputeCapability>> seenByRank = new ConcurrentHashMap<>();

    ThreadRanks.run(
        2,
        rank -> {
          // vLLM's table is chosen by the compute capability: rank 1's GPU is of another generation
          ComputeCapability own = new ComputeCapability(rank.rank() == 0 ? 9 : 8, 0);
          AlgorithmHeuristic recording =
              new AlgorithmHeuristic() {
                @Override
                public String name() {
                  return "recording";
                }

                @Override
                public Decision choose(SizeQuery query) {
                  seenByRank.put(rank.rank(), query.computeCapability());
                  return new Decision(Algorithm.ONESHOT, "recorded");
                }
              };
          return new BenchmarkSweep(
                  AlteredDevice.withComputeCapability(rank.device(), own),
                  rank.communicator(),
                  rank.store(),
                  recording,
                  ProgressDisplay.silent(),
                  PEERS)
              .run(plan, "test");
        });

    Optional<ComputeCapability> hopper = Optional.of(new ComputeCapability(9, 0));
    assertThat(seenByRank).containsOnly(entry(0, hopper), entry(1, hopper));
  }

  @Test
  void aSizeOneRankCannotAllocateIsNotMeasuredAndTheSweepGoesOn() {
    SweepPlan plan =
        plan(
            Collective.ALLREDUCE,
            DType.BF16,
            List.of(1024L, 8192L, 2048L),
            List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT),
            false);

    // Rank 1 holds at most 4 KiB per buffer: the 8 KiB point cannot run anywhere.
    List<BenchmarkSweep.Outcome> outcomes =
        ThreadRanks.run(
            2,
            rank ->
                new BenchmarkSweep(
                        rank.rank() == 1
                            ? AlteredDevice.withMemoryLimit(rank.device(), 4096)
                            : rank.device(),
                        rank.communicator(),
                        rank.store(),
                        new TrtllmHeuristic(),
                        ProgressDisplay.silent(),
                        PEERS)
                    .run(plan, "test"));

    List<SizeResult> sizes = outcomes.getFirst().sizes();
    assertThat(sizes).extracting(SizeResult::bytes).containsExactly(1024L, 8192L, 2048L);
    assertThat(sizes.get(1).measurements()).isEmpty();
    assertThat(sizes.get(1).notMeasured())
        .extracting(NotMeasured::algorithm)
        .containsExactly(Algorithm.ONESHOT, Algorithm.TWOSHOT);
    assertThat(sizes.get(1).notMeasuredReason(Algorithm.TWOSHOT))
        .hasValue(
            "rank 1: cannot allocate 16 KiB of cpu memory (out of memory: 8192 bytes requested)");
    for (SizeResult runnable : List.of(sizes.get(0), sizes.get(2))) {
      assertThat(runnable.notMeasured()).isEmpty();
      assertThat(runnable.measurements())
          .extracting(Measurement::algorithm)
          .containsExactly(Algorithm.ONESHOT, Algorithm.TWOSHOT);
    }
  }

  @Test
  void autoAddsTheChosenAlgorithmWhenItIsNotListed() {
    SweepPlan plan =
        plan(Collective.ALLREDUCE, DType.FP32, List.of(1024L), List.of(Algorithm.RING), true);

    SizeResult size = sweep(2, plan).getFirst().sizes().getFirst();

    assertThat(size.chosen()).isEqualTo(Algorithm.ONESHOT);
    assertThat(size.measurements())
        .extracting(Measurement::algorithm)
        .containsExactly(Algorithm.RING, Algorithm.ONESHOT);
    assertThat(size.chosenReason()).isNotBlank();
  }

  @Test
  void dataMovementCollectivesAreExact() {
    for (Collective collective :
        List.of(
            Collective.ALLGATHER,
            Collective.BROADCAST,
            Collective.COLLECTIVEPERMUTE,
            Collective.REDUCESCATTER)) {
      List<Algorithm> algorithms =
          collective == Collective.COLLECTIVEPERMUTE
              ? List.of(Algorithm.RING)
              : List.of(Algorithm.RING, Algorithm.ONESHOT);
      SweepPlan plan = plan(collective, DType.FP16, List.of(48L), algorithms, false);

      SizeResult size = sweep(3, plan).getFirst().sizes().getFirst();

      assertThat(size.measurements()).as(collective.wireName()).hasSize(algorithms.size());
      if (collective != Collective.REDUCESCATTER) {
        assertThat(size.measurements()).allSatisfy(m -> assertThat(m.maxRelativeError()).isZero());
      }
    }
  }

  @Test
  void aWrongElementFailsNamingAlgorithmSizeRankAndElement() {
    SweepPlan plan =
        plan(
            Collective.ALLREDUCE,
            DType.BF16,
            List.of(4096L),
            List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT),
            false);

    assertThatThrownBy(() -> sweepWithBug(2, plan, Algorithm.TWOSHOT, 517, false))
        .isInstanceOf(ResultMismatchException.class)
        .hasMessageStartingWith(
            "allreduce twoshot at 4 KiB (2048 x bf16): rank 0 output element 517 is 0.74609375, expected ")
        .hasMessageEndingWith("; 1 of 2048 elements wrong");
  }

  @Test
  void anOutputNeverWrittenIsCaughtByThePoison() {
    SweepPlan plan =
        plan(Collective.ALLREDUCE, DType.FP32, List.of(64L), List.of(Algorithm.ONESHOT), false);

    assertThatThrownBy(() -> sweepWithBug(2, plan, Algorithm.ONESHOT, 0, true))
        .isInstanceOf(ResultMismatchException.class)
        .hasMessageContaining("output element 0 is NaN (never written)")
        .hasMessageEndingWith("16 of 16 elements wrong");
  }

  @Test
  void inPlaceCallsSumOverTheirInputAndAutoChoosesOnlyAnAlgorithmThatAllowsIt() {
    SweepPlan plan =
        plan(
            Collective.ALLREDUCE,
            DType.BF16,
            List.of(48L, 4112L),
            List.of(Algorithm.RING),
            true,
            true);

    List<SizeResult> sizes = sweep(3, plan).getFirst().sizes();

    for (SizeResult size : sizes) {
      assertThat(size.chosen())
          .as("oneshot would race with its own sends")
          .isEqualTo(Algorithm.RING);
      assertThat(size.chosenReason())
          .startsWith("in place: ")
          .contains("(oneshot, twoshot) are not available here");
      Measurement ring = size.measurements().getFirst();
      assertThat(size.measurements()).hasSize(1);
      assertThat(ring.eagerMicros()).isPositive();
      assertThat(ring.graphMicros()).isNotNull().isPositive();
      assertThat(ring.maxRelativeError()).isPositive().isLessThan(ElementBound.BF16_RING_OF_THREE);
    }
  }

  @Test
  void anInPlaceCallThatLeavesTheInputAsItWasFails() {
    SweepPlan plan =
        plan(Collective.ALLREDUCE, DType.FP32, List.of(64L), List.of(Algorithm.RING), false, true);

    assertThatThrownBy(() -> sweepWithBug(2, plan, Algorithm.RING, 0, true))
        .isInstanceOf(ResultMismatchException.class)
        .hasMessageStartingWith("allreduce ring at 64 B (16 x fp32): rank ")
        .hasMessageEndingWith("16 of 16 elements wrong");
  }

  @Test
  void thePeerMemoryKernelsAreNeverPlannedInPlace() {
    assertThatThrownBy(
            () ->
                plan(
                    Collective.ALLREDUCE,
                    DType.BF16,
                    List.of(48L),
                    List.of(Algorithm.NCCL, Algorithm.ONESHOT),
                    false,
                    true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                plan(
                    Collective.ALLGATHER,
                    DType.BF16,
                    List.of(48L),
                    List.of(Algorithm.RING),
                    false,
                    true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Error bounds used above, stated once. */
  private static final class ElementBound {
    /** A sum of three bf16 values, rounded once: at most about 2^-8 of Σ|x|. */
    static final double BF16_SUM_OF_THREE = 0x1p-8 * 1.01;

    /** The ring rounds its two partial sums to bf16 too: at most about 2 × 2^-8 of Σ|x|. */
    static final double BF16_RING_OF_THREE = 2 * 0x1p-8 * 1.01;
  }
}
