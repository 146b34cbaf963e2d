package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One-shot and two-shot all-reduces larger than the staging area run through it in passes: given a
 * staging area of a few hundred bytes, calls of several times that size (and counts that leave a
 * short last pass) match the float64 reference, with the same bits on every rank and from both
 * algorithms.
 */
class CpuAllReduceInPassesTest {
  /** The smallest staging area that holds the channel slots of 256 bytes. */
  private static final long STAGING_BYTES = 1024;

  private static final CpuBackendConfig SMALL_STAGING =
      CpuBackendConfig.defaults("allreduce-passes-test")
          .withBufferSizes(STAGING_BYTES, 256)
          .withWaitTimeout(Duration.ofSeconds(10));

  /** Element counts of one short pass, a full pass and a short one, several and a remainder. */
  private static final int[] COUNTS = {3, 700, 1_237};

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  void callsLargerThanTheStagingAreaMatchTheReferenceOnEveryRankWithBothAlgorithms(int worldSize) {
    List<CpuAllReduceTest.Case> cases = new ArrayList<>();
    for (DType dtype : DType.values()) {
      for (int count : COUNTS) {
        cases.add(new CpuAllReduceTest.Case(Algorithm.ONESHOT, dtype, count));
        cases.add(new CpuAllReduceTest.Case(Algorithm.TWOSHOT, dtype, count));
      }
    }
    try (CpuWorld world = CpuWorld.start(worldSize, SMALL_STAGING)) {
      assertThat(world.rank(0).communicator().maxPeerMemoryBytes()).isEqualTo(STAGING_BYTES);
      List<List<byte[]>> outputs =
          world.onEveryRank(
              rank -> {
                List<byte[]> downloaded = new ArrayList<>();
                for (CpuAllReduceTest.Case c : cases) {
                  // One-shot and two-shot of a size get the same input, so their bits compare.
                  int seedIndex =
                      cases.indexOf(
                          new CpuAllReduceTest.Case(Algorithm.ONESHOT, c.dtype(), c.count()));
                  try (DeviceBuffer input =
                          RankData.upload(
                              rank.device(),
                              c.dtype(),
                              c.count(),
                              RankData.seed(seedIndex, rank.rank()));
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
              .as("%s: rank %d's bits against rank 0's", c, rank)
              .isEqualTo(outputs.get(0).get(i));
        }
        if (c.algorithm() == Algorithm.TWOSHOT) {
          assertThat(outputs.get(0).get(i))
              .as("%s against one-shot's bits", c)
              .isEqualTo(outputs.get(0).get(i - 1));
        } else {
          CpuAllReduceTest.assertMatchesReference(
              c, i, worldSize, RankData.decode(outputs.get(0).get(i), c.dtype()));
        }
      }
    }
  }
}
