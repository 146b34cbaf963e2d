package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.heuristic.SizeQuery;
import dev.gpucomm.runtime.heuristic.TrtllmHeuristic;
import dev.gpucomm.runtime.numeric.BlockSums;
import dev.gpucomm.runtime.numeric.ReductionTolerance;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every all-reduce algorithm for every dtype, for world sizes 1 to 8 in one pod and for jobs of
 * several pods, ranks as threads over the real transports (shared memory inside a pod, TCP between
 * pods): results within the fp32-accumulation error bound of a float64 reference, and the same bits
 * on every rank.
 */
class CpuAllReduceTest {
  /** Small slots make the ring move its chunks in several pieces even for modest sizes. */
  static final CpuBackendConfig CONFIG =
      CpuBackendConfig.defaults("allreduce-test")
          .withBufferSizes(256 << 10, 1024)
          .withWaitTimeout(java.time.Duration.ofSeconds(10));

  /** Multiples of 16 bytes that are not powers of two, plus an odd count of elements. */
  private static final long[] SIZES_IN_BYTES = {16, 2000, 6_032};

  private static final int ODD_ELEMENT_COUNT = 7;

  record Case(Algorithm algorithm, DType dtype, int count) {}

  /** Pods × ranks per pod, including a job of 3 pods. */
  static Stream<CpuWorld.Layout> multiPodLayouts() {
    return Stream.of(
        new CpuWorld.Layout(1, 1),
        new CpuWorld.Layout(1, 4),
        new CpuWorld.Layout(2, 1),
        new CpuWorld.Layout(2, 2),
        new CpuWorld.Layout(3, 2),
        new CpuWorld.Layout(4, 1),
        new CpuWorld.Layout(2, 4),
        new CpuWorld.Layout(4, 2));
  }

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void everyAlgorithmAndDtypeMatchesTheReferenceWithIdenticalBitsOnAllRanks(int worldSize) {
    try (CpuWorld world = CpuWorld.start(worldSize, CONFIG)) {
      checkEveryCase(
          world,
          List.of(
              Algorithm.ONESHOT,
              Algorithm.TWOSHOT,
              Algorithm.RING,
              Algorithm.NCCL,
              Algorithm.HIERARCHICAL));
    }
  }

  /**
   * Ring pieces and direct reductions of several blocks of sums, with a remainder of odd length;
   * ring pieces move elements on their first hop and fp32 partials on later ones.
   */
  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {2, 3, 5})
  void reductionsOfSeveralBlocksMatchTheReferenceWithIdenticalBitsOnAllRanks(int worldSize) {
    CpuBackendConfig largeSlots = CONFIG.withBufferSizes(1 << 20, 64 << 10);
    try (CpuWorld world = CpuWorld.start(worldSize, largeSlots)) {
      checkEveryCase(
          world,
          List.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING),
          new long[] {(3L * BlockSums.CAPACITY + 1001) * worldSize * 4},
          3 * BlockSums.CAPACITY + 1001);
    }
  }

  /** Auto is resolved as a job resolves it: by its heuristic, from the communicator's layout. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("multiPodLayouts")
  void ringHierarchicalAndAutoAcrossPodsMatchTheReferenceWithIdenticalBitsOnAllRanks(
      CpuWorld.Layout layout) {
    try (CpuWorld world = CpuWorld.start(layout, CONFIG)) {
      checkEveryCase(
          world, List.of(Algorithm.RING, Algorithm.HIERARCHICAL, Algorithm.NCCL, Algorithm.AUTO));
    }
  }

  private static void checkEveryCase(CpuWorld world, List<Algorithm> algorithms) {
    checkEveryCase(world, algorithms, SIZES_IN_BYTES, ODD_ELEMENT_COUNT);
  }

  private static void checkEveryCase(
      CpuWorld world, List<Algorithm> algorithms, long[] sizesInBytes, int oddElementCount) {
    List<Case> cases = new ArrayList<>();
    for (Algorithm algorithm : algorithms) {
      for (DType dtype : DType.values()) {
        for (long bytes : sizesInBytes) {
          cases.add(new Case(algorithm, dtype, (int) (bytes / dtype.bytes())));
        }
        cases.add(new Case(algorithm, dtype, oddElementCount));
      }
    }
    checkCases(world, cases);
  }

  /**
   * Runs {@code cases} on every rank of {@code world} and checks that each result matches the
   * float64 reference with the same bits on every rank. Each rank queues all calls back to back,
   * sizes and algorithms changing from call to call, and only then reads the results.
   */
  static void checkCases(CpuWorld world, List<Case> cases) {
    int worldSize = world.size();
    List<List<byte[]>> outputs =
        world.onEveryRank(
            rank -> {
              List<DeviceBuffer> inputs = new ArrayList<>();
              List<DeviceBuffer> results = new ArrayList<>();
              for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                inputs.add(
                    RankData.upload(
                        rank.device(), c.dtype(), c.count(), RankData.seed(i, rank.rank())));
                results.add(rank.device().allocate((long) c.count() * c.dtype().bytes()));
              }
              for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                rank.communicator()
                    .allReduce(
                        resolve(c, rank.communicator()),
                        inputs.get(i),
                        results.get(i),
                        c.count(),
                        c.dtype(),
                        rank.device().defaultStream());
              }
              List<byte[]> downloaded = new ArrayList<>();
              for (DeviceBuffer result : results) {
                downloaded.add(RankData.download(rank.device(), result));
              }
              inputs.forEach(DeviceBuffer::close);
              results.forEach(DeviceBuffer::close);
              return downloaded;
            });

    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      for (int rank = 1; rank < worldSize; rank++) {
        assertThat(outputs.get(rank).get(i))
            .as("%s: rank %d's bits against rank 0's", c, rank)
            .isEqualTo(outputs.get(0).get(i));
      }
      assertMatchesReference(c, i, worldSize, RankData.decode(outputs.get(0).get(i), c.dtype()));
    }
  }

  private static Algorithm resolve(Case c, CpuCommunicator communicator) {
    if (c.algorithm() != Algorithm.AUTO) {
      return c.algorithm();
    }
    RankTopology topology = communicator.topology();
    SizeQuery query =
        new SizeQuery(
            Collective.ALLREDUCE,
            (long) c.count() * c.dtype().bytes(),
            OptionalInt.empty(),
            0,
            c.dtype(),
            topology.worldSize(),
            topology.localWorldSize(),
            Optional.empty(),
            communicator.allReduceAlgorithms());
    return new TrtllmHeuristic().choose(query).algorithm();
  }

  static void assertMatchesReference(Case c, int caseIndex, int worldSize, float[] actual) {
    double[] exact = new double[c.count()];
    double[] magnitudes = new double[c.count()];
    for (int rank = 0; rank < worldSize; rank++) {
      float[] input = RankData.values(c.dtype(), c.count(), RankData.seed(caseIndex, rank));
      for (int i = 0; i < c.count(); i++) {
        exact[i] += input[i];
        magnitudes[i] += Math.abs(input[i]);
      }
    }
    ReductionTolerance tolerance = ReductionTolerance.forSum(c.dtype(), worldSize);
    for (int i = 0; i < c.count(); i++) {
      if (!tolerance.accepts(exact[i], magnitudes[i], actual[i])) {
        fail(
            "%s in a world of %d: element %d is %s, the float64 reference %s (bound %s)",
            c, worldSize, i, actual[i], exact[i], tolerance.bound(exact[i], magnitudes[i]));
      }
    }
  }
}
