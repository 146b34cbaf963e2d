package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One-shot all-reduces alternate between the halves of the staging area and only arrive at their
 * end barrier; whatever runs next must not overwrite what a slower peer still reads. Four ranks on
 * a small staging area (so one-shot runs in several passes) queue one-shot calls back to back and
 * each other all-reduce right after one, with new data every call: every result matches the float64
 * reference and is the same on every rank.
 */
class CpuOneShotPendingEndTest {
  private static final CpuBackendConfig SMALL_STAGING =
      CpuBackendConfig.defaults("oneshot-pending-end-test")
          .withBufferSizes(1024, 256)
          .withWaitTimeout(Duration.ofSeconds(10));

  private static final List<Algorithm> SEQUENCE =
      List.of(
          Algorithm.ONESHOT,
          Algorithm.ONESHOT,
          Algorithm.TWOSHOT,
          Algorithm.ONESHOT,
          Algorithm.RING,
          Algorithm.ONESHOT,
          Algorithm.ONESHOT,
          Algorithm.ONESHOT,
          Algorithm.TWOSHOT);

  @Test
  void oneShotsBackToBackAndEveryAllReduceAfterOneMatchTheReference() {
    List<CpuAllReduceTest.Case> cases = new ArrayList<>();
    for (int round = 0; round < 12; round++) {
      for (Algorithm algorithm : SEQUENCE) {
        // 300 bf16 elements: more than one half of the staging area, so two passes per one-shot
        cases.add(new CpuAllReduceTest.Case(algorithm, DType.BF16, 300 + round));
      }
    }
    try (CpuWorld world = CpuWorld.start(4, SMALL_STAGING)) {
      CpuAllReduceTest.checkCases(world, cases);
    }
  }
}
