package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One-shot all-reduces alternate between the halves of the staging area and leave their end barrier
 * pending; whatever runs next must not overwrite what a slower peer still reads. Four ranks on a
 * small staging area (so one-shot runs in several passes) run one-shot calls back to back and each
 * other all-reduce right after one, with new data every call: every result matches the float64
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
    int worldSize = 4;
    List<CpuAllReduceTest.Case> cases = new ArrayList<>();
    for (int round = 0; round < 12; round++) {
      for (Algorithm algorithm : SEQUENCE) {
        // 300 bf16 elements: more than one half of the staging area, so two passes per one-shot
        cases.add(new CpuAllReduceTest.Case(algorithm, DType.BF16, 300 + round));
      }
    }
    try (CpuWorld world = CpuWorld.start(worldSize, SMALL_STAGING)) {
      List<List<byte[]>> outputs =
          world.onEveryRank(
              rank -> {
                List<byte[]> downloaded = new ArrayList<>();
                for (int i = 0; i < cases.size(); i++) {
                  CpuAllReduceTest.Case c = cases.get(i);
                  try (DeviceBuffer input =
                          RankData.upload(
                              rank.device(), c.dtype(), c.count(), RankData.seed(i, rank.rank()));
                      DeviceBuffer output =
                          rank.device().allocate((long) c.count() * c.dtype().bytes())) {
                    rank.communicator()
                        .allReduce(
                            c.algorithm(),
                            input,
                            output,
                            c.count(),
                            c.dtype(),
                            rank.device().defaultStream());
                    downloaded.add(RankData.download(rank.device(), output));
                  }
                }
                return downloaded;
              });
      for (int i = 0; i < cases.size(); i++) {
        CpuAllReduceTest.Case c = cases.get(i);
        for (int rank = 1; rank < worldSize; rank++) {
          assertThat(outputs.get(rank).get(i))
              .as("call %d, %s: rank %d's bits against rank 0's", i, c, rank)
              .isEqualTo(outputs.get(0).get(i));
        }
        CpuAllReduceTest.assertMatchesReference(
            c, i, worldSize, RankData.decode(outputs.get(0).get(i), c.dtype()));
      }
    }
  }
}
