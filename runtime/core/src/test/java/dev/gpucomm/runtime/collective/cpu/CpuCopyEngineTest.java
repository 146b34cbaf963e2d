package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The copyengine all-gather and reduce-scatter on calls several times larger than the staging area
 * (they run in pieces), checked bit for bit against oneshot on calls that fit it and against the
 * exact gather.
 */
class CpuCopyEngineTest {
  private static final int STAGING_BYTES = 4096;
  private static final CpuBackendConfig SMALL_STAGING =
      CpuBackendConfig.defaults("copyengine-test")
          .withBufferSizes(STAGING_BYTES, 1024)
          .withWaitTimeout(Duration.ofSeconds(10));

  private record Outputs(
      byte[] gatheredLarge, byte[] reducedLarge, byte[] copyEngine, byte[] oneShot) {}

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {1, 2, 3, 8})
  void copyEngineRunsCallsAboveTheStagingAreaInPiecesAndAgreesWithOneShotBitForBit(int worldSize) {
    DType dtype = DType.BF16;
    // Per rank: 5.5 staging areas for all-gather; a reduce-scatter input of world · 11 KiB.
    int largeCount = STAGING_BYTES * 11 / 2 / dtype.bytes();
    // Small enough that oneshot's whole reduce-scatter input fits one staging area.
    int smallCount = STAGING_BYTES / worldSize / 16 * 16 / dtype.bytes();
    List<Outputs> outputs;
    try (CpuWorld world = CpuWorld.start(worldSize, SMALL_STAGING)) {
      outputs =
          world.onEveryRank(
              rank -> {
                CpuCommunicator communicator = rank.communicator();
                Stream stream = rank.device().defaultStream();
                long seed = RankData.seed(0, rank.rank());
                try (DeviceBuffer gatherIn =
                        RankData.upload(rank.device(), dtype, largeCount, seed);
                    DeviceBuffer gatherOut =
                        rank.device().allocate((long) largeCount * worldSize * dtype.bytes());
                    DeviceBuffer scatterIn =
                        RankData.upload(rank.device(), dtype, (long) largeCount * worldSize, seed);
                    DeviceBuffer scatterOut =
                        rank.device().allocate((long) largeCount * dtype.bytes());
                    DeviceBuffer smallIn =
                        RankData.upload(rank.device(), dtype, (long) smallCount * worldSize, seed);
                    DeviceBuffer viaCopyEngine =
                        rank.device().allocate((long) smallCount * dtype.bytes());
                    DeviceBuffer viaOneShot =
                        rank.device().allocate((long) smallCount * dtype.bytes())) {
                  communicator.allGather(
                      Algorithm.COPYENGINE, gatherIn, gatherOut, largeCount, dtype, stream);
                  communicator.reduceScatter(
                      Algorithm.COPYENGINE, scatterIn, scatterOut, largeCount, dtype, stream);
                  communicator.reduceScatter(
                      Algorithm.COPYENGINE, smallIn, viaCopyEngine, smallCount, dtype, stream);
                  communicator.reduceScatter(
                      Algorithm.ONESHOT, smallIn, viaOneShot, smallCount, dtype, stream);
                  return new Outputs(
                      RankData.download(rank.device(), gatherOut),
                      RankData.download(rank.device(), scatterOut),
                      RankData.download(rank.device(), viaCopyEngine),
                      RankData.download(rank.device(), viaOneShot));
                }
              });
    }
    float[] expectedGather = new float[largeCount * worldSize];
    for (int r = 0; r < worldSize; r++) {
      System.arraycopy(
          RankData.values(dtype, largeCount, RankData.seed(0, r)),
          0,
          expectedGather,
          r * largeCount,
          largeCount);
    }
    for (int rank = 0; rank < worldSize; rank++) {
      Outputs out = outputs.get(rank);
      assertThat(RankData.decode(out.gatheredLarge(), dtype))
          .as("copyengine all-gather on rank %d of %d", rank, worldSize)
          .isEqualTo(expectedGather);
      assertThat(out.copyEngine())
          .as("copyengine and oneshot reduce-scatter on rank %d of %d", rank, worldSize)
          .isEqualTo(out.oneShot());
      assertThat(RankData.decode(out.reducedLarge(), dtype))
          .as("copyengine reduce-scatter on rank %d of %d", rank, worldSize)
          .isEqualTo(roundedSums(dtype, largeCount, rank, worldSize));
    }
  }

  /** Rank {@code rank}'s shard summed in rank order in fp32, rounded once, like the backends. */
  private static float[] roundedSums(DType dtype, int count, int rank, int worldSize) {
    float[] sums = new float[count];
    for (int source = 0; source < worldSize; source++) {
      float[] input = RankData.values(dtype, count * worldSize, RankData.seed(0, source));
      for (int i = 0; i < count; i++) {
        sums[i] = source == 0 ? input[rank * count + i] : sums[i] + input[rank * count + i];
      }
    }
    ElementCodec codec = ElementCodec.of(dtype);
    float[] rounded = new float[count];
    for (int i = 0; i < count; i++) {
      rounded[i] = codec.round(sums[i]);
    }
    return rounded;
  }
}
