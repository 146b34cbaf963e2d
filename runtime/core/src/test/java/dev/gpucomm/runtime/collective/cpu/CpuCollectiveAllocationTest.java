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
  private static final int MEASURED_ROUNDS = 5;
  private static final int COUNT = 2_000;

  @Test
  void warmCollectivesAllocateNothingOnTheStreamsWorker() {
    try (CpuWorld world = CpuWorld.start(2, CpuAllReduceTest.CONFIG)) {
      assertWarmCallsAllocateNothing(
          world, List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING), Algorithm.ONESHOT);
    }
  }

  /** Across pods the TCP links' buffers, slots and wait conditions are prepared once too. */
  @Test
  void warmCollectivesAcrossPodsAllocateNothingOnTheStreamsWorker() {
    try (CpuWorld world = CpuWorld.start(new CpuWorld.Layout(2, 2), CpuAllReduceTest.CONFIG)) {
      assertWarmCallsAllocateNothing(
          world, List.of(Algorithm.RING, Algorithm.HIERARCHICAL), Algorithm.RING);
    }
  }

  private static void assertWarmCallsAllocateNothing(
      CpuWorld world, List<Algorithm> allReduceAlgorithms, Algorithm reduceScatterAlgorithm) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<Long> allocated =
        world.onEveryRank(
            rank -> {
              Stream stream = rank.device().defaultStream();
              // Reduce-scatter reads and all-gather writes COUNT elements per rank of the world.
              int worldSize = world.size();
              DeviceBuffer input = RankData.upload(rank.device(), DType.BF16, COUNT * worldSize, 1);
              DeviceBuffer output = rank.device().allocate(COUNT * 2L * worldSize);
              long[] workerId = new long[1];
              CpuStream.of(stream)
                  .launch("find the worker", () -> workerId[0] = Thread.currentThread().threadId());
              runAll(
                  rank,
                  input,
                  output,
                  stream,
                  WARMUP_CALLS,
                  allReduceAlgorithms,
                  reduceScatterAlgorithm);
              // Warm means compiled: on a busy machine the JIT may finish after the warm-up
              // calls, so the calls are measured in rounds and the last round counts. Both ranks
              // run every round, so their calls stay paired.
              long lastRound = 0;
              for (int round = 0; round < MEASURED_ROUNDS; round++) {
                stream.synchronize();
                long before = threads.getThreadAllocatedBytes(workerId[0]);
                runAll(
                    rank,
                    input,
                    output,
                    stream,
                    MEASURED_CALLS,
                    allReduceAlgorithms,
                    reduceScatterAlgorithm);
                stream.synchronize();
                lastRound = threads.getThreadAllocatedBytes(workerId[0]) - before;
              }
              return lastRound;
            });
    // Any object allocated per call would take at least 16 bytes per call; the worker may
    // allocate a few bytes in all when it idles on its queue between calls.
    long calls = MEASURED_CALLS * (allReduceAlgorithms.size() + 4L);
    assertThat(allocated).allSatisfy(bytes -> assertThat(bytes).isLessThan(calls));
  }

  private static void runAll(
      CpuWorld.Rank rank,
      DeviceBuffer input,
      DeviceBuffer output,
      Stream stream,
      int calls,
      List<Algorithm> allReduceAlgorithms,
      Algorithm reduceScatterAlgorithm) {
    CpuCommunicator communicator = rank.communicator();
    for (int call = 0; call < calls; call++) {
      for (Algorithm algorithm : allReduceAlgorithms) {
        communicator.allReduce(algorithm, input, output, COUNT, DType.BF16, stream);
      }
      communicator.allGather(Algorithm.RING, input, output, COUNT, DType.BF16, stream);
      communicator.reduceScatter(reduceScatterAlgorithm, input, output, COUNT, DType.BF16, stream);
      communicator.broadcast(Algorithm.RING, input, output, COUNT, DType.BF16, 1, stream);
      communicator.collectivePermute(input, output, COUNT, DType.BF16, stream);
    }
  }
}
