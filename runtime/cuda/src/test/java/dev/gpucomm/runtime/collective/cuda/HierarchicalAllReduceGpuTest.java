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
import dev.gpucomm.runtime.fabric.CommunicatorFabric;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two pods of one GPU each, as two ranks of one process on two GPUs: hierarchical all-reduce runs
 * its in-pod steps on each rank alone and crosses pods on the NCCL communicator split by local
 * rank, and both ranks get the fp32 sum of the two inputs, bit for bit, eager and in a graph.
 */
@Tag("gpu")
class HierarchicalAllReduceGpuTest {
  private static final Duration RANK_TIMEOUT = Duration.ofSeconds(45);
  private static final String RANK_THREAD = "hierarchical-rank-";

  private record RankOutput(int rank, float[] values) {}

  @ParameterizedTest
  @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  // One chunk, and more than the 64 MiB peer buffer (two chunks).
  @ValueSource(longs = {1_000_003, 17_000_001})
  void twoPodsOfOneGpuGetTheSameExactSum(long count) throws Exception {
    CudaBackend backend = new CudaBackend();
    assumeTrue(backend.deviceCount() >= 2, "needs 2 GPUs: " + backend.unavailableReason());
    InMemoryStore store = new InMemoryStore();
    // Daemon threads: a rank stuck in a native call must not keep the test JVM alive.
    ExecutorService ranks =
        Executors.newFixedThreadPool(
            2, Thread.ofPlatform().daemon().name(RANK_THREAD, 0).factory());
    try {
      CompletionService<RankOutput> finished = new ExecutorCompletionService<>(ranks);
      for (int rank = 0; rank < 2; rank++) {
        int own = rank;
        finished.submit(() -> new RankOutput(own, runRank(backend, store, own, count)));
      }
      float[][] byRank = new float[2][];
      for (int done = 0; done < 2; done++) {
        // The first rank to fail is reported at once: its peer would wait for it in NCCL.
        Future<RankOutput> next = finished.poll(RANK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (next == null) {
          throw new AssertionError(
              "a rank did not finish within "
                  + RANK_TIMEOUT
                  + " (a collective never completed); where the ranks were:\n"
                  + rankStacks());
        }
        RankOutput output = next.get();
        byRank[output.rank()] = output.values();
      }
      float[] rankZero = byRank[0];
      float[] rankOne = byRank[1];

      float[] inputZero = input(0, count);
      float[] inputOne = input(1, count);
      for (int i = 0; i < count; i++) {
        float expected = inputZero[i] + inputOne[i];
        if (Float.floatToRawIntBits(rankZero[i]) != Float.floatToRawIntBits(expected)
            || Float.floatToRawIntBits(rankOne[i]) != Float.floatToRawIntBits(expected)) {
          throw new AssertionError(
              "element "
                  + i
                  + ": expected "
                  + expected
                  + ", got "
                  + rankZero[i]
                  + ", "
                  + rankOne[i]);
        }
      }
    } finally {
      ranks.shutdownNow();
    }
  }

  /** The Java stacks of the rank threads: which call a stuck rank is in. */
  private static String rankStacks() {
    StringBuilder stacks = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (thread, frames) -> {
              if (thread.getName().startsWith(RANK_THREAD)) {
                stacks.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                for (StackTraceElement frame : frames) {
                  stacks.append("    at ").append(frame).append('\n');
                }
              }
            });
    return stacks.toString();
  }

  private static float[] input(int rank, long count) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment host = arena.allocate(count * 4, 16);
      ElementCodec.of(DType.FP32).fillRandom(host, count, 100 + rank);
      return host.toArray(ValueLayout.JAVA_FLOAT);
    }
  }

  private static float[] runRank(CudaBackend backend, InMemoryStore store, int rank, long count) {
    try (CudaDevice device = (CudaDevice) backend.open(rank);
        CudaCommunicator communicator =
            CudaCommunicator.create(
                device,
                store,
                new RankTopology(rank, 2, 0, 1),
                CudaCommunicatorSettings.defaults());
        Arena arena = Arena.ofConfined();
        DeviceBuffer input = device.allocate(count * 4);
        DeviceBuffer output = device.allocate(count * 4)) {
      assertThat(communicator.allReduceAlgorithms())
          .as(communicator.unavailableReason())
          .contains(Algorithm.HIERARCHICAL);
      assertThat(communicator.fabrics())
          .extracting(CommunicatorFabric::communicator)
          .containsExactly(CommunicatorFabric.WORLD, CommunicatorFabric.ACROSS_PODS);
      // Both "pods" are GPUs of this host: wherever NCCL's log was read, the link is a peer path.
      if (communicator.fabrics().get(1).observation().known()) {
        assertThat(communicator.podLink().kind())
            .as(communicator.podLink().seen())
            .isEqualTo(PodLink.Kind.PEER);
      }
      MemorySegment host = arena.allocate(count * 4, 16);
      host.copyFrom(MemorySegment.ofArray(input(rank, count)));
      device.upload(host, input, 0);
      Stream stream = device.defaultStream();
      communicator.allReduce(Algorithm.HIERARCHICAL, input, output, count, DType.FP32, stream);
      stream.synchronize();
      device.fill(output, 0, count * 4, (byte) 0, stream);
      try (Graph graph =
          device.capture(
              stream,
              () ->
                  communicator.allReduce(
                      Algorithm.HIERARCHICAL, input, output, count, DType.FP32, stream))) {
        for (int replay = 0; replay < 3; replay++) {
          graph.replay(stream);
        }
      }
      MemorySegment back = arena.allocate(count * 4, 16);
      device.download(output, 0, back, stream);
      stream.synchronize();
      return back.toArray(ValueLayout.JAVA_FLOAT);
    }
  }
}
