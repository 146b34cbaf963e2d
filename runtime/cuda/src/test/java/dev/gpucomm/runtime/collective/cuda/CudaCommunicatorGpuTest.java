package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.Algorithm;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A one-rank communicator on a real GPU: every kernel runs its full path (push, flags, epochs,
 * Lamport slots) with itself as the only peer, so the sum is the input, exactly.
 */
@Tag("gpu")
class CudaCommunicatorGpuTest {
  private CudaDevice device;
  private CudaCommunicator communicator;

  @BeforeEach
  void openOneRank() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());
    device = (CudaDevice) backend.open(0);
    communicator = oneRankCommunicator();
  }

  private CudaCommunicator oneRankCommunicator() {
    return CudaCommunicator.create(
        device,
        new InMemoryStore(),
        new RankTopology(0, 1, 0, 1),
        CudaCommunicatorSettings.defaults());
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

  @ParameterizedTest
  @CsvSource({
    "lamport, bf16, 1001",
    "lamport, fp32, 65536",
    "oneshot, fp16, 4104",
    "oneshot, bf16, 2097152",
    "twoshot, fp32, 1000003",
    "twoshot, bf16, 8",
    "lamport2, bf16, 4104",
    "lamport2, fp32, 99999",
    "oneshot_ws, bf16, 1048584",
    "oneshot_ws, fp16, 24",
    "twoshot_ws, fp32, 1000003",
    "twoshot_ws, bf16, 4104"
  })
  void eagerAndGraphCallsReturnTheInputBitForBit(String variant, String dtypeName, long count) {
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    long bytes = count * dtype.bytes();
    Stream stream = device.defaultStream();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer output = device.allocate(bytes)) {
      MemorySegment host = arena.allocate(bytes, 16);
      ElementCodec.of(dtype).fillRandom(host, count, count);
      device.upload(host, input, 0);

      IpcAllReduce kernels = communicator.ipcAllReduce().orElseThrow();
      kernels.allReduceWith(variant, input, output, count, dtype, stream);
      // A different grid (and, for Lamport, refilled slots) between the eager and graph calls.
      stream.synchronize();
      KernelShape shape = kernels.kernelShape();
      kernels.tune(shape.withGrids(16, 24, 8).withChunks(3, 5));
      Graph graph =
          device.capture(
              stream,
              () -> {
                for (int i = 0; i < 3; i++) {
                  kernels.allReduceWith(variant, input, output, count, dtype, stream);
                }
              });
      for (int replay = 0; replay < 5; replay++) {
        graph.replay(stream);
      }
      MemorySegment back = arena.allocate(bytes, 16);
      device.download(output, 0, back, stream);
      graph.close();

      assertThat(back.mismatch(host)).isEqualTo(-1);
    }
  }

  @ParameterizedTest
  @CsvSource({"bf16", "fp32"})
  void ncclWithOneRankAlsoReturnsTheInput(String dtypeName) {
    assumeTrue(
        communicator.allReduceAlgorithms().contains(Algorithm.NCCL),
        "NCCL not loadable here: " + communicator.unavailableReason());
    assertNcclAllReduceReturnsTheInput(DType.fromWireName(dtypeName).orElseThrow());
  }

  @Test
  void aCommunicatorAbortedAfterAFailureLeavesTheDeviceToTheNextOne() {
    assumeTrue(
        communicator.allReduceAlgorithms().contains(Algorithm.NCCL),
        "NCCL not loadable here: " + communicator.unavailableReason());
    assertNcclAllReduceReturnsTheInput(DType.BF16);

    communicator.closeAfterFailure();

    assertThatThrownBy(
            () ->
                communicator.allReduce(
                    Algorithm.NCCL, null, null, 1, DType.BF16, device.defaultStream()))
        .hasMessageContaining("is closed");
    communicator.close(); // nothing is released twice
    communicator = oneRankCommunicator();
    assertNcclAllReduceReturnsTheInput(DType.FP32);
    assertThat(communicator.allReduceAlgorithms()).contains(Algorithm.ONESHOT, Algorithm.TWOSHOT);
  }

  private void assertNcclAllReduceReturnsTheInput(DType dtype) {
    long count = 12345;
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(count * dtype.bytes());
        DeviceBuffer output = device.allocate(count * dtype.bytes())) {
      MemorySegment host = arena.allocate(input.byteSize(), 16);
      ElementCodec.of(dtype).fillRandom(host, count, 5);
      device.upload(host, input, 0);
      communicator.allReduce(Algorithm.NCCL, input, output, count, dtype, device.defaultStream());
      MemorySegment back = arena.allocate(input.byteSize(), 16);
      device.download(output, 0, back, device.defaultStream());

      assertThat(back.mismatch(host)).isEqualTo(-1);
    }
  }
}
