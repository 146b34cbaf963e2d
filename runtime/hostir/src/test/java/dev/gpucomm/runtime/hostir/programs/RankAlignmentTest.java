package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RankAlignmentTest {
  @Test
  void runsAreLinedUpUnlessTurnedOff() {
    assertThat(RankAlignment.wanted(Map.of())).isTrue();
    assertThat(RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "on"))).isTrue();
    assertThat(RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "off"))).isFalse();
  }

  @Test
  void anotherValueIsNamedInOneLine() {
    assertThatThrownBy(() -> RankAlignment.wanted(Map.of("GPUCOMM_PROGRAM_ALIGN", "no")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GPUCOMM_PROGRAM_ALIGN must be on or off, got 'no'");
  }

  @Test
  void everyRankLinesUpWithTheSameAllReduceWhateverOrderItsSetIteratesIn() {
    // without NCCL (GPUCOMM_NCCL=off), where a Set.copyOf iterated in an order drawn per JVM
    var oneshotFirst = new LinkedHashSet<>(List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT));
    var twoshotFirst = new LinkedHashSet<>(List.of(Algorithm.TWOSHOT, Algorithm.ONESHOT));

    assertThat(RankAlignment.algorithmFor(oneshotFirst)).isEqualTo(Algorithm.ONESHOT);
    assertThat(RankAlignment.algorithmFor(twoshotFirst)).isEqualTo(Algorithm.ONESHOT);
    assertThat(
            RankAlignment.algorithmFor(
                new LinkedHashSet<>(List.of(Algorithm.TWOSHOT, Algorithm.NCCL))))
        .isEqualTo(Algorithm.NCCL);
  }

  @Test
  void everyRankLinesItsRunsUpAsRankZerosEnvironmentSays() throws Exception {
    InMemoryStore store = new InMemoryStore();
    Duration wait = Duration.ofSeconds(10);

    // rank 1 asks first, from its own thread, and waits for rank 0's word
    CompletableFuture<Boolean> onRankOne =
        CompletableFuture.supplyAsync(
            () ->
                RankAlignment.wantedOnEveryRank(
                    Map.of("GPUCOMM_PROGRAM_ALIGN", "on"), store, "hostir/1/align", 1, wait));
    boolean onRankZero =
        RankAlignment.wantedOnEveryRank(
            Map.of("GPUCOMM_PROGRAM_ALIGN", "off"), store, "hostir/1/align", 0, wait);

    assertThat(onRankZero).isFalse();
    assertThat(onRankOne.get(20, TimeUnit.SECONDS)).as("rank 1 follows rank 0's off").isFalse();
  }

  @Test
  void aRankWhoseOwnValueIsNeitherOnNorOffIsRefusedThoughRankZeroDecides() {
    InMemoryStore store = new InMemoryStore();
    RankAlignment.wantedOnEveryRank(Map.of(), store, "hostir/1/align", 0, Duration.ofSeconds(1));

    assertThatThrownBy(
            () ->
                RankAlignment.wantedOnEveryRank(
                    Map.of("GPUCOMM_PROGRAM_ALIGN", "no"),
                    store,
                    "hostir/1/align",
                    1,
                    Duration.ofSeconds(1)))
        .hasMessage("GPUCOMM_PROGRAM_ALIGN must be on or off, got 'no'");
  }
}
