package dev.gpucomm.runtime.heuristic;

import static dev.gpucomm.runtime.heuristic.Queries.CPU_ALGORITHMS;
import static dev.gpucomm.runtime.heuristic.Queries.bytes;
import static dev.gpucomm.runtime.heuristic.Queries.cc;
import static dev.gpucomm.runtime.heuristic.Queries.withAvailable;
import static dev.gpucomm.runtime.heuristic.Queries.withCollective;
import static dev.gpucomm.runtime.heuristic.Queries.withRanksPerNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VllmHeuristicTest {
  private static final long KIB = 1L << 10;
  private static final long MIB = 1L << 20;

  private final VllmHeuristic heuristic = new VllmHeuristic();

  private Decision choose(String cc, int world, long bytes) {
    return heuristic.choose(bytes(bytes, world, cc(cc)));
  }

  @ParameterizedTest(
      name = "cc {0} world {1}: custom all-reduce below {2} KiB, symm-mem below {3} KiB")
  @CsvSource({
    // cc, world, custom all-reduce limit (KiB), symmetric-memory limit (KiB), from vLLM's tables
    "9.0, 2, 65536, 65536",
    "9.0, 4, 32768, 32768",
    "9.0, 6, 512, 65536",
    "9.0, 8, 256, 65536",
    "10.0, 2, 2048, 8192",
    "10.0, 4, 2048, 32768",
    "10.0, 6, 1024, 131072",
    "10.0, 8, 1024, 131072",
    "10.3, 2, 4096, 4096",
    "10.3, 4, 4096, 32768",
    "10.3, 6, 8192, 32768",
    "10.3, 8, 4096, 65536",
  })
  void customAllReduceThenSymmetricMemoryThenNcclAtTheTableLimits(
      String cc, int world, long customKib, long symmKib) {
    long customLimit = customKib * KIB;
    long symmLimit = symmKib * KIB;

    Decision justBelowCustom = choose(cc, world, customLimit - 16);
    Decision atCustom = choose(cc, world, customLimit);
    Decision justBelowSymm = choose(cc, world, symmLimit - 16);
    Decision atSymm = choose(cc, world, symmLimit);

    assertThat(justBelowCustom.reason()).contains("→ custom all-reduce");
    assertThat(atCustom.reason()).doesNotContain("→ custom all-reduce");
    if (symmLimit > customLimit) {
      assertThat(atCustom.algorithm()).isEqualTo(Algorithm.TWOSHOT);
      assertThat(atCustom.reason()).contains("→ symmetric-memory path, run as twoshot");
      assertThat(justBelowSymm.algorithm()).isEqualTo(Algorithm.TWOSHOT);
      assertThat(justBelowSymm.reason()).contains("symmetric-memory path");
    } else {
      // The symmetric-memory range is empty: straight from custom all-reduce to NCCL.
      assertThat(atCustom.algorithm()).isEqualTo(Algorithm.NCCL);
    }
    assertThat(atSymm.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(atSymm.reason()).contains("≥ symmetric-memory limit").endsWith("→ nccl");
  }

  @Test
  void worldTwoIsAlwaysOneStageInsideCustomAllReduce() {
    Decision decision = choose("9.0", 2, 48 * MIB);

    assertThat(decision.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(decision.reason())
        .isEqualTo(
            "cc 9.0: 50331648 B (48 MiB) < custom all-reduce limit 64 MiB for world 2 → custom"
                + " all-reduce, world 2 → 1-stage → oneshot");
  }

  @ParameterizedTest(name = "world {0}: 1-stage below {1} KiB, 2-stage from there")
  @CsvSource({
    // (world ≤ 4 and bytes < 512 KiB) or (world ≤ 8 and bytes < 256 KiB); cc 9.0 world 4 allows
    // custom all-reduce to 32 MiB, cc 10.3 world 6 to 8 MiB, cc 10.0 world 8 to 1 MiB.
    "4, 9.0, 512",
    "6, 10.3, 256",
    "8, 10.0, 256",
  })
  void oneStageBelowTheStageLimitTwoStageFromIt(int world, String cc, long stageKib) {
    Decision below = choose(cc, world, stageKib * KIB - 16);
    Decision at = choose(cc, world, stageKib * KIB);

    assertThat(below.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(below.reason()).endsWith("→ 1-stage → oneshot");
    assertThat(at.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(at.reason()).endsWith("→ 2-stage → twoshot");
  }

  @Test
  void theSeedsH100WorldFourSizesFollowTheDispatch() {
    // vLLM's H100 TP=4 table: "we use CA for all inputs below 32MB".
    long rowBytes = 8192 * 2;
    assertThat(choose("9.0", 4, 96 * rowBytes).algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(choose("9.0", 4, 1024 * rowBytes).reason()).contains("custom all-reduce, ");
    assertThat(choose("9.0", 4, 2048 * rowBytes).algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(choose("9.0", 4, 4096 * rowBytes).algorithm()).isEqualTo(Algorithm.NCCL);
  }

  @Test
  void withoutComputeCapabilityTheHopperTablesApplyAndTheReasonSaysSo() {
    Decision decision = heuristic.choose(bytes(MIB, 8, Optional.empty()));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(decision.reason())
        .startsWith("no compute capability (cpu backend): using vLLM's cc 9.0 tables: ")
        .contains("symmetric-memory path");
  }

  @Test
  void unknownComputeCapabilitiesUseTheNearestLowerTable() {
    assertThat(choose("10.1", 2, 2 * MIB - 16).reason())
        .startsWith("cc 10.1 has no vLLM table: using the nearest lower, cc 10.0")
        .contains("custom all-reduce limit 2 MiB");
    assertThat(choose("12.0", 6, 8 * MIB - 16).reason())
        .startsWith("cc 12.0 has no vLLM table: using the nearest lower, cc 10.3")
        .contains("custom all-reduce limit 8 MiB");
    assertThat(choose("9.5", 8, 512 * KIB).reason()).contains("nearest lower, cc 9.0");
  }

  @Test
  void belowHopperVllmKeepsItsDefaultBufferAndHasNoSymmetricMemory() {
    Decision inside = choose("8.0", 2, 8 * MIB - 16);
    Decision beyond = choose("8.0", 2, 8 * MIB);

    assertThat(inside.algorithm()).isEqualTo(Algorithm.ONESHOT);
    assertThat(beyond.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(beyond.reason()).contains("no symmetric-memory path");
  }

  @ParameterizedTest(name = "world {0} → nccl")
  @CsvSource({"3", "5", "16"})
  void worldSizesVllmDoesNotSupportGoToNccl(int world) {
    Decision decision = choose("9.0", world, 64 * KIB);

    assertThat(decision.algorithm()).isEqualTo(Algorithm.NCCL);
    assertThat(decision.reason()).contains("world sizes 2, 4, 6, 8, not " + world);
  }

  @Test
  void sizesOffTheSixteenByteGridSkipCustomAllReduce() {
    Decision decision = choose("9.0", 4, 1000);

    assertThat(decision.algorithm()).isEqualTo(Algorithm.TWOSHOT);
    assertThat(decision.reason()).contains("not a multiple of 16 B", "symmetric-memory path");
    assertThat(choose("9.0", 4, 1002).algorithm()).isEqualTo(Algorithm.NCCL);
  }

  @Test
  void spanningNodesOrLackingIpcLeavesNccl() {
    assertThat(heuristic.choose(withRanksPerNode(bytes(KIB, 8, cc("9.0")), 4)).reason())
        .isEqualTo(
            "spans 2 pods of 4 ranks (world 8): vLLM's custom and symmetric-memory all-reduce is"
                + " single-node; using nccl (hierarchical is not available here)");
    assertThat(
            heuristic
                .choose(withAvailable(bytes(KIB, 8, cc("9.0")), EnumSet.of(Algorithm.NCCL)))
                .reason())
        .contains("IPC algorithms (oneshot, twoshot) are not available");
  }

  @Test
  void onTheCpuBackendNcclIsReplacedByRing() {
    Decision decision =
        heuristic.choose(withAvailable(bytes(64 * MIB, 8, Optional.empty()), CPU_ALGORITHMS));

    assertThat(decision.algorithm()).isEqualTo(Algorithm.RING);
    assertThat(decision.reason()).endsWith("nccl is not available here → ring");
  }

  @Test
  void otherCollectivesRunOnNccl() {
    assertThat(
            heuristic
                .choose(withCollective(bytes(KIB, 4, cc("9.0")), Collective.REDUCESCATTER))
                .algorithm())
        .isEqualTo(Algorithm.NCCL);
  }
}
