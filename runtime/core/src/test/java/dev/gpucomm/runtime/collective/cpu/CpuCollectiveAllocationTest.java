package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The collectives themselves (the kernels on the stream's worker) allocate nothing per call once
 * warm: the shared buffers, flag offsets, scratch arrays and codecs were all set up with the
 * communicator.
 */
class CpuCollectiveAllocationTest {
  private static final int WARMUP_CALLS = 300;
  private static final int MEASURED_CALLS = 100;
  private static final int COUNT = 2_000;

  @Test
  void warmCollectivesAllocateNothingOnTheStreamsWorker() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (CpuWorld world = CpuWorld.start(2, CpuAllReduceTest.CONFIG)) {
      List<Long> allocated =
          world.onEveryRank(
              rank -> {
                Stream stream = rank.device().defaultStream();
                DeviceBuffer input = RankData.upload(rank.device(), DType.BF16, COUNT * 2, 1);
                DeviceBuffer output = rank.device().allocate(COUNT * 4L);
                long[] workerId = new long[1];
                CpuStream.of(stream)
                    .launch(
                        "find the worker", () -> workerId[0] = Thread.currentThread().threadId());
                runAll(rank, input, output, stream, WARMUP_CALLS);
                stream.synchronize();
                long before = threads.getThreadAllocatedBytes(workerId[0]);
                runAll(rank, input, output, stream, MEASURED_CALLS);
                stream.synchronize();
                return threads.getThreadAllocatedBytes(workerId[0]) - before;
              });
      // Any object allocated per call would take at least 16 bytes per call; the worker may
      // allocate a few bytes in all when it idles on its queue between calls.
      long calls = MEASURED_CALLS * 7L;
      assertThat(allocated).allSatisfy(bytes -> assertThat(bytes).isLessThan(calls));
    }
  }

  private static void runAll(
      CpuWorld.Rank rank, DeviceBuffer input, DeviceBuffer output, Stream stream, int calls) {
    CpuCommunicator communicator = rank.communicator();
    for (int call = 0; call < calls; call++) {
      for (Algorithm algorithm : List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING)) {
        communicator.allReduce(algorithm, input, output, COUNT, DType.BF16, stream);
      }
      communicator.allGather(Algorithm.RING, input, output, COUNT, DType.BF16, stream);
      communicator.reduceScatter(Algorithm.ONESHOT, input, output, COUNT, DType.BF16, stream);
      communicator.broadcast(Algorithm.RING, input, output, COUNT, DType.BF16, 1, stream);
      communicator.collectivePermute(input, output, COUNT, DType.BF16, stream);
    }
  }
}
