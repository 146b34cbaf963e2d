package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * All-gather, reduce-scatter (copyengine included), broadcast (every root) and collective permute,
 * for every algorithm and dtype, for world sizes 1 to 8 in one pod and for jobs of several pods
 * (where the hops between pods go over TCP), queued back to back on each rank.
 */
class CpuCollectivesTest {
  private static final List<Algorithm> ALGORITHMS = List.of(Algorithm.ONESHOT, Algorithm.RING);

  /** Copyengine moves whole shards, so only all-gather and reduce-scatter take it. */
  private static final List<Algorithm> SHARD_ONLY_ALGORITHMS = List.of(Algorithm.COPYENGINE);

  /** Per-rank sizes in bytes: a multiple of 16 that spans several ring pieces, and a tiny one. */
  private static final long[] SIZES_IN_BYTES = {1_552, 16};

  private sealed interface Operation {
    DType dtype();

    int count();

    long inputElements(int worldSize);

    long outputElements(int worldSize);
  }

  private record AllGather(Algorithm algorithm, DType dtype, int count) implements Operation {
    public long inputElements(int worldSize) {
      return count;
    }

    public long outputElements(int worldSize) {
      return (long) count * worldSize;
    }
  }

  private record ReduceScatter(Algorithm algorithm, DType dtype, int count) implements Operation {
    public long inputElements(int worldSize) {
      return (long) count * worldSize;
    }

    public long outputElements(int worldSize) {
      return count;
    }
  }

  private record Broadcast(Algorithm algorithm, DType dtype, int count, int root)
      implements Operation {
    public long inputElements(int worldSize) {
      return count;
    }

    public long outputElements(int worldSize) {
      return count;
    }
  }

  private record Permute(DType dtype, int count) implements Operation {
    public long inputElements(int worldSize) {
      return count;
    }

    public long outputElements(int worldSize) {
      return (long) count * worldSize;
    }
  }

  private record RankResult(List<byte[]> outputs, long sendReceivePairs) {}

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void everyCollectiveAlgorithmAndDtypeDeliversTheReferenceResult(int worldSize) {
    try (CpuWorld world = CpuWorld.start(worldSize, CpuAllReduceTest.CONFIG)) {
      checkEveryCollective(world, ALGORITHMS, SHARD_ONLY_ALGORITHMS);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.gpucomm.runtime.collective.cpu.CpuAllReduceTest#multiPodLayouts")
  void everyCollectiveAndDtypeDeliversTheReferenceResultAcrossPods(CpuWorld.Layout layout) {
    try (CpuWorld world = CpuWorld.start(layout, CpuAllReduceTest.CONFIG)) {
      checkEveryCollective(world, List.of(Algorithm.RING), List.of());
    }
  }

  private static void checkEveryCollective(
      CpuWorld world, List<Algorithm> algorithms, List<Algorithm> shardOnlyAlgorithms) {
    int worldSize = world.size();
    List<Operation> operations = new ArrayList<>();
    int root = 0;
    for (DType dtype : DType.values()) {
      for (long bytes : SIZES_IN_BYTES) {
        int count = (int) (bytes / dtype.bytes());
        for (Algorithm algorithm : algorithms) {
          operations.add(new AllGather(algorithm, dtype, count));
          operations.add(new ReduceScatter(algorithm, dtype, count));
          operations.add(new Broadcast(algorithm, dtype, count, root++ % worldSize));
        }
        for (Algorithm algorithm : shardOnlyAlgorithms) {
          operations.add(new AllGather(algorithm, dtype, count));
          operations.add(new ReduceScatter(algorithm, dtype, count));
        }
        operations.add(new Permute(dtype, count));
      }
    }
    // nccl is accepted by every collective and runs the ring.
    operations.add(new AllGather(Algorithm.NCCL, DType.BF16, 8));
    operations.add(new ReduceScatter(Algorithm.NCCL, DType.FP16, 8));
    operations.add(new Broadcast(Algorithm.NCCL, DType.FP32, 4, worldSize - 1));
    long permutes = operations.stream().filter(Permute.class::isInstance).count();

    List<RankResult> results =
        world.onEveryRank(
            rank -> {
              List<DeviceBuffer> inputs = new ArrayList<>();
              List<DeviceBuffer> outputs = new ArrayList<>();
              Stream stream = rank.device().defaultStream();
              for (int i = 0; i < operations.size(); i++) {
                Operation op = operations.get(i);
                inputs.add(
                    RankData.upload(
                        rank.device(),
                        op.dtype(),
                        op.inputElements(worldSize),
                        RankData.seed(i, rank.rank())));
                DeviceBuffer output =
                    rank.device().allocate(op.outputElements(worldSize) * op.dtype().bytes());
                // Garbage (NaN in every dtype) wherever the collective fails to write.
                rank.device().fill(output, 0, output.byteSize(), (byte) 0x7f, stream);
                outputs.add(output);
              }
              CpuCommunicator communicator = rank.communicator();
              long pairsBefore = communicator.sendReceivePairs();
              for (int i = 0; i < operations.size(); i++) {
                DeviceBuffer in = inputs.get(i);
                DeviceBuffer out = outputs.get(i);
                switch (operations.get(i)) {
                  case AllGather(Algorithm a, DType d, int count) ->
                      communicator.allGather(a, in, out, count, d, stream);
                  case ReduceScatter(Algorithm a, DType d, int count) ->
                      communicator.reduceScatter(a, in, out, count, d, stream);
                  case Broadcast(Algorithm a, DType d, int count, int r) ->
                      communicator.broadcast(a, in, out, count, d, r, stream);
                  case Permute(DType d, int count) ->
                      communicator.collectivePermute(in, out, count, d, stream);
                }
              }
              List<byte[]> downloaded = new ArrayList<>();
              outputs.forEach(out -> downloaded.add(RankData.download(rank.device(), out)));
              inputs.forEach(DeviceBuffer::close);
              outputs.forEach(DeviceBuffer::close);
              return new RankResult(downloaded, communicator.sendReceivePairs() - pairsBefore);
            });

    for (int rank = 0; rank < worldSize; rank++) {
      assertThat(results.get(rank).sendReceivePairs())
          .as("send/receive pairs of rank %d in %d permutes", rank, permutes)
          .isEqualTo(permutes * (worldSize - 1));
      for (int i = 0; i < operations.size(); i++) {
        Operation op = operations.get(i);
        float[] actual = RankData.decode(results.get(rank).outputs().get(i), op.dtype());
        String where = "%s on rank %d of %d".formatted(op, rank, worldSize);
        switch (op) {
          case AllGather g -> assertThat(actual).as(where).isEqualTo(gathered(op, i, worldSize));
          case Permute p -> assertThat(actual).as(where).isEqualTo(gathered(op, i, worldSize));
          case Broadcast b ->
              assertThat(actual)
                  .as(where)
                  .isEqualTo(RankData.values(op.dtype(), op.count(), RankData.seed(i, b.root())));
          case ReduceScatter s -> assertReducedSlice(where, s, i, rank, worldSize, actual);
        }
      }
    }
  }

  /** Every rank's input, in rank order. */
  private static float[] gathered(Operation op, int index, int worldSize) {
    float[] expected = new float[op.count() * worldSize];
    for (int rank = 0; rank < worldSize; rank++) {
      float[] input = RankData.values(op.dtype(), op.count(), RankData.seed(index, rank));
      System.arraycopy(input, 0, expected, rank * op.count(), op.count());
    }
    return expected;
  }

  private static void assertReducedSlice(
      String where, ReduceScatter op, int index, int rank, int worldSize, float[] actual) {
    double[] exact = new double[op.count()];
    double[] magnitudes = new double[op.count()];
    for (int source = 0; source < worldSize; source++) {
      float[] input =
          RankData.values(op.dtype(), op.count() * worldSize, RankData.seed(index, source));
      for (int i = 0; i < op.count(); i++) {
        exact[i] += input[rank * op.count() + i];
        magnitudes[i] += Math.abs(input[rank * op.count() + i]);
      }
    }
    ReductionTolerance tolerance = ReductionTolerance.forSum(op.dtype(), worldSize);
    for (int i = 0; i < op.count(); i++) {
      if (!tolerance.accepts(exact[i], magnitudes[i], actual[i])) {
        fail("%s: element %d is %s, the float64 reference %s", where, i, actual[i], exact[i]);
      }
    }
  }
}
