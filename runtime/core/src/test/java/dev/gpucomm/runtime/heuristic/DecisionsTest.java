package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class DecisionsTest {
  @Test
  void replacementsFollowTheChainThenTheNearestBefore() {
    assertThat(Decisions.fallbackFor(Algorithm.ONESHOT, EnumSet.of(Algorithm.NCCL, Algorithm.RING)))
        .contains(Algorithm.NCCL);
    assertThat(Decisions.fallbackFor(Algorithm.TWOSHOT, EnumSet.of(Algorithm.RING)))
        .contains(Algorithm.RING);
    assertThat(
            Decisions.fallbackFor(Algorithm.NCCL, EnumSet.of(Algorithm.ONESHOT, Algorithm.TWOSHOT)))
        .contains(Algorithm.TWOSHOT);
    assertThat(Decisions.fallbackFor(Algorithm.RING, EnumSet.of(Algorithm.ONESHOT)))
        .contains(Algorithm.ONESHOT);
    assertThat(Decisions.fallbackFor(Algorithm.RING, EnumSet.noneOf(Algorithm.class))).isEmpty();
  }

  @Test
  void everyDecisionIsLoggedAtDebugWithItsInputs() {
    Logger logger = Logger.getLogger("dev.gpucomm.runtime.heuristic");
    List<LogRecord> records = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            records.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level previous = logger.getLevel();
    logger.setLevel(Level.FINE);
    capture.setLevel(Level.ALL);
    logger.addHandler(capture);
    try {
      new TrtllmHeuristic().choose(tokens(256, 8192, DType.BF16, 4));
    } finally {
      logger.removeHandler(capture);
      logger.setLevel(previous);
    }

    assertThat(records).hasSize(1);
    assertThat(records.getFirst().getLevel()).isEqualTo(Level.FINE);
    assertThat(records.getFirst().getMessage())
        .startsWith("trtllm chose oneshot for allreduce 4194304 B (tokens 256, hidden 8192, bf16,")
        .contains("world 4", "commMB 32.0 ≤ 64");
  }

  @Test
  void aQueryListsTheAvailableAlgorithmsInTheirDeclaredOrderOnEveryRank() {
    // a Set.copyOf iterates in an order drawn per JVM: a rule taking the first would differ by rank
    var twoshotFirst = new LinkedHashSet<>(List.of(Algorithm.TWOSHOT, Algorithm.ONESHOT));

    var query =
        new SizeQuery(
            Collective.ALLREDUCE,
            1 << 20,
            OptionalInt.empty(),
            8192,
            DType.BF16,
            2,
            2,
            Optional.empty(),
            twoshotFirst);

    assertThat(query.available()).containsExactly(Algorithm.ONESHOT, Algorithm.TWOSHOT);
  }
}
