package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Calls larger than a small peer buffer (64 KiB) run through it in passes on a real GPU, eagerly
 * and captured in a CUDA graph, with the last pass short: with one rank the sum is the input, so
 * every byte of every pass must come back exactly.
 */
@Tag("gpu")
class CudaAllReduceInPassesGpuTest {
  private static final long PEER_BUFFER_BYTES = 64 << 10;

  private CudaDevice device;
  private CudaCommunicator communicator;

  @BeforeEach
  void openOneRankWithASmallPeerBuffer() {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() > 0, "no GPU: " + backend.unavailableReason());
    device = (CudaDevice) backend.open(0);
    communicator =
        CudaCommunicator.create(
            device,
            new InMemoryStore(),
            new RankTopology(0, 1, 0, 1),
            CudaCommunicatorSettings.from(
                Map.of("GPUCOMM_PEER_BUFFER_BYTES", Long.toString(PEER_BUFFER_BYTES))));
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

  @ParameterizedTest(name = "{0} {1} x {2}")
  @CsvSource({
    "oneshot, bf16, 100003",
    "twoshot, fp32, 50001",
    "oneshot, fp16, 32776",
    "twoshot, bf16, 1048584"
  })
  void theCommunicatorsCallsLargerThanThePeerBufferReturnTheInput(
      String algorithmName, String dtypeName, long count) {
    Algorithm algorithm = Algorithm.fromWireName(algorithmName).orElseThrow();
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    assertThat(communicator.maxPeerMemoryBytes()).isEqualTo(PEER_BUFFER_BYTES);
    assertRoundTrip(
        dtype,
        count,
        (input, output, stream) ->
            communicator.allReduce(algorithm, input, output, count, dtype, stream));
  }

  @ParameterizedTest(name = "{0} {1} x {2}")
  @CsvSource({
    "lamport, bf16, 70001",
    "lamport2, fp32, 40003",
    "oneshot_ws, bf16, 90000",
    "twoshot_ws, fp16, 65544",
    "oneshot_stream, bf16, 100003",
    "oneshot_stream, fp32, 16392",
    "oneshot_stream, fp16, 32776"
  })
  void everyKernelForcedByNameRunsInPasses(String variant, String dtypeName, long count) {
    DType dtype = DType.fromWireName(dtypeName).orElseThrow();
    IpcAllReduce kernels = communicator.ipcAllReduce().orElseThrow();
    assertRoundTrip(
        dtype,
        count,
        (input, output, stream) ->
            kernels.allReduceWith(variant, input, output, count, dtype, stream));
  }

  @Test
  void aStreamedCallOfMorePassesThanOneLaunchNumbersTakesSeveralLaunches() {
    IpcAllReduce kernels = communicator.ipcAllReduce().orElseThrow();
    int chunks = KernelShape.MAX_PIPELINE_CHUNKS;
    kernels.tune(kernels.kernelShape().withChunks(chunks, kernels.kernelShape().twoShotChunks()));
    long passesPerLaunch = IpcAllReduce.streamedPassesPerLaunch(chunks);
    // Two launches, the second of them a pass and a bit.
    long count = (passesPerLaunch + 1) * PEER_BUFFER_BYTES / 2 + 4099;
    assertRoundTrip(
        DType.BF16,
        count,
        (input, output, stream) ->
            kernels.allReduceWith("oneshot_stream", input, output, count, DType.BF16, stream));
  }

  @Test
  void aStreamedCallWhoseShortLastPassHasMoreChunksThanAWholeOneReturnsTheInput() {
    // One block of 256 pushing threads: a whole pass of 144 KiB is 36 groups (3 a chunk, 12
    // chunks), the last pass 13 groups (1 a chunk, 13 chunks), whose chunk 12 overwrites what
    // chunk 11 of the whole pass held.
    long passBytes = 147456;
    long count = (passBytes + 13 * 256 * 16) / 2;
    try (CudaCommunicator oneBlock =
        CudaCommunicator.create(
            device,
            new InMemoryStore(),
            new RankTopology(0, 1, 0, 1),
            CudaCommunicatorSettings.from(
                Map.of(
                    "GPUCOMM_PEER_BUFFER_BYTES", Long.toString(passBytes),
                    "GPUCOMM_ONESHOT_BLOCKS", "1",
                    "GPUCOMM_ONESHOT_STREAM_MIN_BYTES", "0")))) {
      assertRoundTrip(
          DType.BF16,
          count,
          (input, output, stream) ->
              oneBlock.allReduce(Algorithm.ONESHOT, input, output, count, DType.BF16, stream));
    }
  }

  private interface Call {
    void run(DeviceBuffer input, DeviceBuffer output, Stream stream);
  }

  private void assertRoundTrip(DType dtype, long count, Call call) {
    long bytes = count * dtype.bytes();
    assertThat(bytes).isGreaterThan(PEER_BUFFER_BYTES);
    Stream stream = device.defaultStream();
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(bytes);
        DeviceBuffer output = device.allocate(bytes)) {
      MemorySegment host = arena.allocate(bytes, 16);
      ElementCodec.of(dtype).fillRandom(host, count, count);
      device.upload(host, input, 0);
      MemorySegment back = arena.allocate(bytes, 16);

      call.run(input, output, stream);
      device.download(output, 0, back, stream);
      assertThat(back.mismatch(host)).as("eager").isEqualTo(-1);

      device.fill(output, 0, bytes, (byte) 0xFF, stream);
      try (Graph graph =
          device.capture(
              stream,
              () -> {
                for (int i = 0; i < 3; i++) {
                  call.run(input, output, stream);
                }
              })) {
        for (int replay = 0; replay < 4; replay++) {
          graph.replay(stream);
        }
      }
      device.download(output, 0, back, stream);
      assertThat(back.mismatch(host)).as("graph replays").isEqualTo(-1);
    }
  }
}
