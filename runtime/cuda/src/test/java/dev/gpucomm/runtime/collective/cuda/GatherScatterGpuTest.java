package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * gpucomm's all-gather and reduce-scatter on one rank of a real GPU: the kernels and copy-engine
 * steps run their whole protocol (epochs, barriers, slots) with the rank as its only peer, on a
 * peer buffer small enough that larger calls run in several pieces; the result is the input, bit
 * for bit, eagerly and from CUDA-graph replays.
 */
@Tag("gpu")
class GatherScatterGpuTest {
  /**
   * A 64 KiB peer buffer: gather slots of 64 KiB, so a 1 MiB call runs in 16 pieces; the LL kernels
   * up to 16 KiB per rank, the flag single pass above it.
   */
  private static final Map<String, String> SMALL_PEER_BUFFER =
      Map.of(
          "GPUCOMM_PEER_BUFFER_BYTES", "65536",
          "GPUCOMM_GATHER_LL_MAX_BYTES", "16384",
          "GPUCOMM_LAMPORT_MAX_BYTES", "0",
          "GPUCOMM_LAMPORT2_MAX_BYTES", "0",
          "GPUCOMM_HOST_PATH", "off");

  private CudaDevice device;
  private CudaCommunicator communicator;

  @BeforeEach
  void openOneRank() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());
    device = (CudaDevice) backend.open(0);
    communicator =
        CudaCommunicator.create(
            device,
            new InMemoryStore(),
            new RankTopology(0, 1, 0, 1),
            CudaCommunicatorSettings.from(SMALL_PEER_BUFFER));
  }

  @AfterEach
  void close() {
    if (communicator != null) {
      communicator.close();
    }
    if (device != null) {
      device.close();
    }
  }

  @Test
  void offersOneshotAndCopyengineForAllGatherAndReduceScatter() {
    assertThat(communicator.algorithms(Collective.ALLGATHER))
        .contains(Algorithm.ONESHOT, Algorithm.COPYENGINE);
    assertThat(communicator.algorithms(Collective.REDUCESCATTER))
        .contains(Algorithm.ONESHOT, Algorithm.COPYENGINE);
    assertThat(communicator.algorithms(Collective.ALLREDUCE)).doesNotContain(Algorithm.COPYENGINE);
  }

  @ParameterizedTest
  @CsvSource({
    "allgather, oneshot, bf16, 8",
    "allgather, oneshot, fp16, 8192",
    "allgather, oneshot, fp32, 262144",
    "allgather, copyengine, fp16, 4104",
    "allgather, copyengine, bf16, 524288",
    "reducescatter, oneshot, bf16, 524296",
    "reducescatter, oneshot, fp32, 4",
    "reducescatter, oneshot, bf16, 8192",
    "reducescatter, copyengine, fp16, 32768",
    "reducescatter, copyengine, fp32, 262148"
  })
  void eagerAndGraphCallsReturnTheInputBitForBit(
      String collectiveName, String algorithmName, String dtypeName, long count) {
    Collective collective = Collective.fromWireName(collectiveName).orElseThrow();
    Algorithm algorithm = Algorithm.fromWireName(algorithmName).orElseThrow();
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    long bytes = count * dtype.bytes();
    Stream stream = device.defaultStream();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer output = device.allocate(bytes)) {
      MemorySegment host = arena.allocate(bytes, 16);
      ElementCodec.of(dtype).fillRandom(host, count, count);
      device.upload(host, input, 0);
      Runnable call =
          () -> {
            if (collective == Collective.ALLGATHER) {
              communicator.allGather(algorithm, input, output, count, dtype, stream);
            } else {
              communicator.reduceScatter(algorithm, input, output, count, dtype, stream);
            }
          };

      call.run();
      MemorySegment eager = arena.allocate(bytes, 16);
      device.download(output, 0, eager, stream);
      device.fill(output, 0, bytes, (byte) 0x7f, stream);
      Graph graph =
          device.capture(
              stream,
              () -> {
                for (int i = 0; i < 3; i++) {
                  call.run();
                }
              });
      for (int replay = 0; replay < 5; replay++) {
        graph.replay(stream);
      }
      MemorySegment replayed = arena.allocate(bytes, 16);
      device.download(output, 0, replayed, stream);
      graph.close();

      assertThat(eager.mismatch(host)).as("eager call").isEqualTo(-1);
      assertThat(replayed.mismatch(host)).as("graph replays").isEqualTo(-1);
    }
  }

  /**
   * Bytes per rank around the kernels' switches from the LL kernels (up to 16 KiB) to the flag
   * single pass (up to the 64 KiB buffer's parity slot) to pipelined rounds of half a slot: one
   * vector, the largest LL call, the smallest and largest flag single pass, the smallest pipelined
   * call (two rounds, the second of one vector), three rounds, and 32 rounds.
   */
  private static final long[] SIZES_ACROSS_THE_SWITCH = {
    16, 16384, 16400, 33024, 33040, 65552, 1 << 20
  };

  @Test
  void singlePassPipelinedAndCopyEngineCallsFollowEachOtherInAnyOrder() {
    Stream stream = device.defaultStream();
    long largest = 1 << 20;
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(largest);
        DeviceBuffer output = device.allocate(largest)) {
      MemorySegment host = arena.allocate(largest, 16);
      ElementCodec.of(DType.BF16).fillRandom(host, largest / 2, 7);
      device.upload(host, input, 0);
      MemorySegment result = arena.allocate(largest, 16);
      for (Algorithm algorithm : new Algorithm[] {Algorithm.ONESHOT, Algorithm.COPYENGINE}) {
        for (long bytes : SIZES_ACROSS_THE_SWITCH) {
          for (Collective collective :
              new Collective[] {Collective.ALLGATHER, Collective.REDUCESCATTER}) {
            device.fill(output, 0, largest, (byte) 0x7f, stream);
            if (collective == Collective.ALLGATHER) {
              communicator.allGather(algorithm, input, output, bytes / 2, DType.BF16, stream);
            } else {
              communicator.reduceScatter(algorithm, input, output, bytes / 2, DType.BF16, stream);
            }
            device.download(output, 0, result, stream);
            assertThat(result.asSlice(0, bytes).mismatch(host.asSlice(0, bytes)))
                .as("%s %s of %d bytes", collective, algorithm, bytes)
                .isEqualTo(-1);
          }
        }
      }
    }
  }
}
