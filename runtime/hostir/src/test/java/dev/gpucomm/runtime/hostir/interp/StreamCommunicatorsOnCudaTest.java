package dev.gpucomm.runtime.hostir.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cuda.CudaBackend;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A program's per-stream communicators on one GPU, each with NCCL of its own: after a failure they
 * are aborted, and the device serves the next program's.
 */
@Tag("gpu")
class StreamCommunicatorsOnCudaTest {
  private static final CudaBackend BACKEND = new CudaBackend();
  private static final RankTopology ONE_RANK = new RankTopology(0, 1, 0, 1);

  @Test
  void aFailedProgramsWorkersAreAbortedAndTheNextProgramGetsWorkingOnes() {
    assumeTrue(BACKEND.deviceCount() > 0, "no CUDA device: " + BACKEND.unavailableReason());
    InMemoryStore store = new InMemoryStore();
    try (Device device = BACKEND.open(0);
        Communicator main = BACKEND.createCommunicator(device, store, ONE_RANK)) {
      assumeTrue(
          main.allReduceAlgorithms().contains(Algorithm.NCCL),
          "NCCL not loadable here: " + main.unavailableReason());
      CommunicatorFactory factory = CommunicatorFactory.of(BACKEND, device, store, ONE_RANK);
      StreamCommunicators failed = StreamCommunicators.perStream(main, factory, "failed/");
      assertNcclAllReduceReturnsTheInput(device, failed.forWorker(1));
      RuntimeException failure = new IllegalStateException("rank 0: a kernel failed");

      failed.closeAfterFailure(failure);

      assertThat(failed.extraCommunicators()).isEqualTo(2);
      assertThat(failure.getSuppressed()).as("both workers aborted without an error").isEmpty();
      try (StreamCommunicators next = StreamCommunicators.perStream(main, factory, "next/")) {
        assertNcclAllReduceReturnsTheInput(device, next.forWorker(0));
      }
      assertNcclAllReduceReturnsTheInput(device, main);
    }
  }

  private static void assertNcclAllReduceReturnsTheInput(Device device, Communicator communicator) {
    long count = 4099;
    DType dtype = DType.BF16;
    try (Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(count * dtype.bytes());
        DeviceBuffer output = device.allocate(count * dtype.bytes())) {
      MemorySegment host = arena.allocate(input.byteSize(), 16);
      ElementCodec.of(dtype).fillRandom(host, count, 7);
      device.upload(host, input, 0);
      communicator.allReduce(Algorithm.NCCL, input, output, count, dtype, device.defaultStream());
      MemorySegment back = arena.allocate(input.byteSize(), 16);
      device.download(output, 0, back, device.defaultStream());

      assertThat(back.mismatch(host)).isEqualTo(-1);
    }
  }
}
