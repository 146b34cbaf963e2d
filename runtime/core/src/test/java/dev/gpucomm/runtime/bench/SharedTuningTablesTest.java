package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.heuristic.TuningCurve;
import dev.gpucomm.runtime.heuristic.TuningSample;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.rendezvous.RendezvousTimeoutException;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A measured job's ranks follow one tuning table, rank 0's, even where each would have read
 * another: a ConfigMap rewritten by a tune job while the pods start.
 */
class SharedTuningTablesTest {
  private static final long MIB = 1L << 20;
  private static final String KEY = "sweep/tuning-table";
  private static final Duration WAIT = Duration.ofSeconds(1);

  /** Two ranks, two oneshot/twoshot crossovers: the table before and after a tune rewrote it. */
  private static TuningTable tunedWithTwoshotAt(double twoshotMicrosAtFourMib) {
    return TuningTable.fromMeasurements(
        "cluster",
        Collective.ALLREDUCE,
        List.of(
            new TuningSample(2, DType.BF16, MIB, Algorithm.ONESHOT, 6, 2, "NVIDIA H200"),
            new TuningSample(2, DType.BF16, MIB, Algorithm.TWOSHOT, 7, 2, "NVIDIA H200"),
            new TuningSample(2, DType.BF16, 4 * MIB, Algorithm.ONESHOT, 16, 2, "NVIDIA H200"),
            new TuningSample(
                2,
                DType.BF16,
                4 * MIB,
                Algorithm.TWOSHOT,
                twoshotMicrosAtFourMib,
                2,
                "NVIDIA H200")));
  }

  @Test
  void everyRankFollowsTheTableRankZeroRead() {
    InMemoryStore store = new InMemoryStore();
    TuningTable beforeTheTune = tunedWithTwoshotAt(15);
    TuningTable afterTheTune = tunedWithTwoshotAt(18);
    AtomicInteger rankOnesReads = new AtomicInteger();
    Function<String, TuningTable> rankOnesConfigMap =
        reference -> {
          rankOnesReads.incrementAndGet();
          return afterTheTune;
        };

    TuningTable onRankZero =
        SharedTuningTables.fromRankZero(reference -> beforeTheTune, store, KEY, 0, WAIT)
            .apply("cluster-tuning");
    TuningTable onRankOne =
        SharedTuningTables.fromRankZero(rankOnesConfigMap, store, KEY, 1, WAIT)
            .apply("cluster-tuning");

    assertThat(onRankZero).isEqualTo(beforeTheTune);
    assertThat(onRankOne).isEqualTo(beforeTheTune).isNotEqualTo(afterTheTune);
    assertThat(rankOnesReads).as("rank 1 reads no table of its own").hasValue(0);
  }

  @Test
  void whenRankZeroCannotReadTheTableTheOthersReadNoneOfTheirOwn() {
    InMemoryStore store = new InMemoryStore();
    AtomicInteger rankOnesReads = new AtomicInteger();

    assertThatThrownBy(
            () ->
                SharedTuningTables.fromRankZero(
                        reference -> {
                          throw new IllegalArgumentException(
                              "ConfigMap gpu/" + reference + " not found");
                        },
                        store,
                        KEY,
                        0,
                        WAIT)
                    .apply("cluster-tuning"))
        .hasMessage("ConfigMap gpu/cluster-tuning not found");
    // in a job, the store fails rank 1's wait at once with rank 0's failure; here it times out
    assertThatThrownBy(
            () ->
                SharedTuningTables.fromRankZero(
                        reference -> {
                          rankOnesReads.incrementAndGet();
                          return tunedWithTwoshotAt(15);
                        },
                        store,
                        KEY,
                        1,
                        Duration.ofMillis(50))
                    .apply("cluster-tuning"))
        .isInstanceOf(RendezvousTimeoutException.class);
    assertThat(rankOnesReads).hasValue(0);
  }

  @Test
  void aTableFromBeforeDevicesAndLayoutsWereRecordedReachesTheOtherRanksAsItWasRead() {
    InMemoryStore store = new InMemoryStore();
    TuningTable older =
        TuningTable.fromMeasurements(
            "older",
            Collective.ALLREDUCE,
            List.of(
                new TuningSample(2, DType.BF16, MIB, Algorithm.NCCL, 9.25, 0),
                new TuningSample(2, DType.BF16, MIB, Algorithm.ONESHOT, 12.125, 0)));

    SharedTuningTables.fromRankZero(reference -> older, store, KEY, 0, WAIT).apply("older.json");
    TuningTable onRankOne =
        SharedTuningTables.fromRankZero(reference -> null, store, KEY, 1, WAIT).apply("older.json");

    assertThat(onRankOne).isEqualTo(older);
    assertThat(onRankOne.curves().getFirst().deviceRecorded()).isFalse();
    assertThat(onRankOne.curves().getFirst().ranksPerNode())
        .isEqualTo(TuningCurve.LAYOUT_NOT_RECORDED);
  }
}
