package dev.gpucomm.runtime.collective.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Graph;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.device.cpu.CpuKernelFailedException;
import dev.gpucomm.runtime.heuristic.PodLink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class CpuCommunicatorTest {
  private static final CpuBackendConfig CONFIG = CpuAllReduceTest.CONFIG;

  /**
   * Long enough that a rank thread held off the CPU (the build runs other modules' tests beside
   * these) still reaches its barrier in time, so that the error names only the rank that stayed.
   */
  private static final Duration SHORT_WAIT = Duration.ofSeconds(1);

  @ParameterizedTest(name = "world of {0}")
  @ValueSource(ints = {2, 3, 5})
  void sendReceiveDeliversEveryShiftOfTheRingInSeveralPieces(int worldSize) {
    int bytes = 3 * 1024 + 16; // four pieces of a 1 KiB slot
    try (CpuWorld world = CpuWorld.start(worldSize, CONFIG)) {
      List<List<byte[]>> received =
          world.onEveryRank(
              rank -> {
                DeviceBuffer send =
                    RankData.upload(rank.device(), DType.FP32, bytes / 4, rank.rank());
                List<DeviceBuffer> receives =
                    java.util.stream.Stream.generate(
                            () -> (DeviceBuffer) rank.device().allocate(bytes))
                        .limit(worldSize)
                        .toList();
                for (int shift = 0; shift < worldSize; shift++) {
                  rank.communicator()
                      .sendReceive(
                          send,
                          (rank.rank() + shift) % worldSize,
                          receives.get(shift),
                          (rank.rank() - shift + worldSize) % worldSize,
                          bytes,
                          rank.device().defaultStream());
                }
                return receives.stream().map(r -> RankData.download(rank.device(), r)).toList();
              });
      for (int rank = 0; rank < worldSize; rank++) {
        for (int shift = 0; shift < worldSize; shift++) {
          int sender = (rank - shift + worldSize) % worldSize;
          assertThat(RankData.decode(received.get(rank).get(shift), DType.FP32))
              .as("rank %d, shift %d, from rank %d", rank, shift, sender)
              .isEqualTo(RankData.values(DType.FP32, bytes / 4, sender));
        }
      }
    }
  }

  @Test
  void oneshotAndTwoshotSumInTheSameOrderSoTheirResultsAreBitIdentical() {
    int worldSize = 5;
    int count = 1_001;
    try (CpuWorld world = CpuWorld.start(worldSize, CONFIG)) {
      List<byte[][]> results =
          world.onEveryRank(
              rank -> {
                DeviceBuffer input = RankData.upload(rank.device(), DType.BF16, count, rank.rank());
                DeviceBuffer oneShot = rank.device().allocate(count * 2L);
                DeviceBuffer twoShot = rank.device().allocate(count * 2L);
                Stream stream = rank.device().defaultStream();
                rank.communicator()
                    .allReduce(Algorithm.ONESHOT, input, oneShot, count, DType.BF16, stream);
                rank.communicator()
                    .allReduce(Algorithm.TWOSHOT, input, twoShot, count, DType.BF16, stream);
                return new byte[][] {
                  RankData.download(rank.device(), oneShot),
                  RankData.download(rank.device(), twoShot)
                };
              });
      for (int rank = 0; rank < worldSize; rank++) {
        assertThat(results.get(rank)[1]).as("rank %d", rank).isEqualTo(results.get(0)[0]);
      }
    }
  }

  @Test
  void aCapturedGraphOfCollectivesReplaysCorrectlyWithNewInputsEachTime() {
    int worldSize = 4;
    int count = 1000;
    int replays = 3;
    try (CpuWorld world = CpuWorld.start(worldSize, CONFIG)) {
      List<List<float[][]>> results =
          world.onEveryRank(
              rank -> {
                CpuDevice device = rank.device();
                CpuCommunicator communicator = rank.communicator();
                Stream stream = device.createStream();
                DeviceBuffer input = device.allocate(count * 2L);
                DeviceBuffer oneShot = device.allocate(count * 2L);
                DeviceBuffer ring = device.allocate(count * 2L);
                DeviceBuffer permuted = device.allocate(count * 2L * worldSize);
                Graph graph =
                    device.capture(
                        stream,
                        () -> {
                          communicator.allReduce(
                              Algorithm.ONESHOT, input, oneShot, count, DType.BF16, stream);
                          communicator.allReduce(
                              Algorithm.RING, input, ring, count, DType.BF16, stream);
                          communicator.collectivePermute(
                              input, permuted, count, DType.BF16, stream);
                        });
                List<float[][]> perReplay = new ArrayList<>();
                for (int replay = 0; replay < replays; replay++) {
                  DeviceBuffer fresh =
                      RankData.upload(
                          device, DType.BF16, count, RankData.seed(replay, rank.rank()));
                  device.copy(input, 0, fresh, 0, count * 2L, stream);
                  graph.replay(stream);
                  stream.synchronize();
                  perReplay.add(
                      new float[][] {
                        RankData.decode(RankData.download(device, oneShot), DType.BF16),
                        RankData.decode(RankData.download(device, ring), DType.BF16),
                        RankData.decode(RankData.download(device, permuted), DType.BF16)
                      });
                  fresh.close();
                }
                return perReplay;
              });
      for (int replay = 0; replay < replays; replay++) {
        for (int rank = 0; rank < worldSize; rank++) {
          float[][] outputs = results.get(rank).get(replay);
          for (float[] allReduced : List.of(outputs[0], outputs[1])) {
            CpuAllReduceTest.assertMatchesReference(
                new CpuAllReduceTest.Case(Algorithm.ONESHOT, DType.BF16, count),
                replay,
                worldSize,
                allReduced);
          }
          for (int source = 0; source < worldSize; source++) {
            float[] chunk = Arrays.copyOfRange(outputs[2], source * count, (source + 1) * count);
            assertThat(chunk)
                .as("replay %d, rank %d, permuted chunk of rank %d", replay, rank, source)
                .isEqualTo(RankData.values(DType.BF16, count, RankData.seed(replay, source)));
          }
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"ONESHOT", "TWOSHOT"})
  void aPeerThatNeverArrivesFailsTheOthersWithAnErrorNamingIt(Algorithm algorithm) {
    try (CpuWorld world = CpuWorld.start(3, CONFIG.withWaitTimeout(SHORT_WAIT))) {
      List<String> errors =
          world.onEveryRank(
              rank -> {
                if (rank.rank() == 2) {
                  return "stayed away";
                }
                DeviceBuffer buffer = RankData.upload(rank.device(), DType.FP16, 64, rank.rank());
                Stream stream = rank.device().defaultStream();
                rank.communicator().allReduce(algorithm, buffer, buffer, 64, DType.FP16, stream);
                Throwable failure = catchFailure(stream::synchronize);
                // The ranks are out of step now: the communicator refuses further collectives.
                Throwable refusal =
                    catchFailure(
                        () ->
                            rank.communicator()
                                .allReduce(algorithm, buffer, buffer, 64, DType.FP16, stream));
                assertThat(refusal)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("failed earlier");
                return failure.getMessage();
              });
      for (int rank = 0; rank < 2; rank++) {
        assertThat(errors.get(rank))
            .contains(algorithm.wireName() + " all-reduce on rank " + rank)
            .contains("rank 2 did not reach the start barrier within 1000 ms");
      }
    }
  }

  @Test
  void aRankWhoseCollectiveFailsMakesThePeersGiveUpAtOnceNamingIt() {
    CountDownLatch rankOneBroke = new CountDownLatch(1);
    try (CpuWorld world = CpuWorld.start(3, CONFIG.withWaitTimeout(Duration.ofSeconds(30)))) {
      long started = System.nanoTime();
      List<Throwable> failures =
          world.onEveryRank(
              rank -> {
                DeviceBuffer input = RankData.upload(rank.device(), DType.BF16, 64, rank.rank());
                DeviceBuffer output = rank.device().allocate(128);
                Stream stream = rank.device().defaultStream();
                rank.communicator()
                    .allReduce(Algorithm.TWOSHOT, input, output, 64, DType.BF16, stream);
                if (rank.rank() == 1) {
                  output.close(); // the kernel will find its output gone: a failure on rank 1
                  rankOneBroke.countDown();
                }
                awaitQuietly(rankOneBroke);
                return catchFailure(stream::synchronize);
              });
      assertThat(failures.get(1)).hasMessageContaining("closed");
      for (int rank : new int[] {0, 2}) {
        assertThat(failures.get(rank))
            .hasCauseInstanceOf(PeerFailedException.class)
            .hasMessageContaining(
                "twoshot all-reduce on rank %d gave up: rank 1 failed".formatted(rank));
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }
  }

  @Test
  void twoRanksExchangeAfterAOneShotWhileTheThirdWaitsForThemWithoutHanging() {
    // A one-shot leaves its end barrier for the next other collective to wait on; a send/receive
    // between ranks 1 and 2 must not need rank 0, which arrived when its one-shot finished and
    // now waits for their exchange before its next collective.
    CountDownLatch exchanged = new CountDownLatch(2);
    try (CpuWorld world = CpuWorld.start(3, CONFIG.withWaitTimeout(Duration.ofSeconds(10)))) {
      long started = System.nanoTime();
      List<float[]> received =
          world.onEveryRank(
              rank -> {
                Stream stream = rank.device().defaultStream();
                DeviceBuffer input = RankData.upload(rank.device(), DType.FP32, 64, rank.rank());
                DeviceBuffer sum = rank.device().allocate(256);
                rank.communicator()
                    .allReduce(Algorithm.ONESHOT, input, sum, 64, DType.FP32, stream);
                stream.synchronize();
                float[] got = null;
                if (rank.rank() == 0) {
                  awaitQuietly(exchanged);
                } else {
                  int peer = 3 - rank.rank();
                  DeviceBuffer receive = rank.device().allocate(256);
                  rank.communicator().sendReceive(input, peer, receive, peer, 256, stream);
                  stream.synchronize();
                  got = RankData.decode(RankData.download(rank.device(), receive), DType.FP32);
                  exchanged.countDown();
                }
                rank.communicator()
                    .allReduce(Algorithm.ONESHOT, input, sum, 64, DType.FP32, stream);
                stream.synchronize();
                return got;
              });
      for (int rank = 1; rank <= 2; rank++) {
        assertThat(received.get(rank))
            .as("what rank %d received from rank %d", rank, 3 - rank)
            .containsExactly(RankData.values(DType.FP32, 64, 3 - rank));
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
    }
  }

  @Test
  void aRankThatClosesItsCommunicatorMakesWaitingPeersGiveUpSayingSo() {
    try (CpuWorld world = CpuWorld.start(2, CONFIG.withWaitTimeout(Duration.ofSeconds(30)))) {
      world.rank(1).communicator().close();
      CpuWorld.Rank rank = world.rank(0);
      DeviceBuffer buffer = RankData.upload(rank.device(), DType.FP32, 16, 0);
      Stream stream = rank.device().defaultStream();
      long started = System.nanoTime();
      rank.communicator().allReduce(Algorithm.TWOSHOT, buffer, buffer, 16, DType.FP32, stream);
      assertThat(catchFailure(stream::synchronize))
          .hasMessageContaining(
              "twoshot all-reduce on rank 0 gave up: rank 1 closed its communicator");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
      assertThatThrownBy(
              () ->
                  world
                      .rank(1)
                      .communicator()
                      .allReduce(Algorithm.RING, buffer, buffer, 16, DType.FP32, stream))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("the communicator of rank 1 is closed");
    }
  }

  @Test
  void aRingWhoseLeftNeighbourNeverSendsFailsNamingThatNeighbour() {
    try (CpuWorld world = CpuWorld.start(2, CONFIG.withWaitTimeout(SHORT_WAIT))) {
      List<Throwable> failures =
          world.onEveryRank(
              rank -> {
                if (rank.rank() == 1) {
                  return null;
                }
                DeviceBuffer buffer = RankData.upload(rank.device(), DType.FP32, 1000, 0);
                Stream stream = rank.device().defaultStream();
                rank.communicator()
                    .allReduce(Algorithm.NCCL, buffer, buffer, 1000, DType.FP32, stream);
                return catchFailure(stream::synchronize);
              });
      assertThat(failures.get(0))
          .isInstanceOf(CpuKernelFailedException.class)
          .hasCauseInstanceOf(PeerTimeoutException.class)
          .hasMessageContaining("ring all-reduce on rank 0: rank 1 did not");
    }
  }

  @Test
  void twoCollectivesOfOneCommunicatorRunningAtOnceAreRefused() {
    try (CpuWorld world = CpuWorld.start(2, CONFIG.withWaitTimeout(Duration.ofSeconds(30)))) {
      // Rank 0 issues on two streams while rank 1 stays away, so the first collective is still
      // waiting at its barrier when the second one starts; the second one's failure makes the
      // first give up at once rather than after the timeout.
      CpuWorld.Rank rank = world.rank(0);
      DeviceBuffer first = rank.device().allocate(64);
      DeviceBuffer second = rank.device().allocate(64);
      Stream one = rank.device().createStream();
      Stream other = rank.device().createStream();
      rank.communicator().allReduce(Algorithm.ONESHOT, first, first, 32, DType.BF16, one);
      rank.communicator().allReduce(Algorithm.ONESHOT, second, second, 32, DType.BF16, other);
      long started = System.nanoTime();
      String messages = catchFailure(one::synchronize) + " / " + catchFailure(other::synchronize);
      assertThat(messages)
          .contains("started while oneshot all-reduce was still running on the same communicator")
          .contains("gave up: another collective of this rank failed");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }
  }

  @Test
  void argumentsAreCheckedWhenTheCallIsMadeWithMessagesNamingTheProblem() {
    try (CpuWorld world = CpuWorld.start(1, CONFIG)) {
      CpuWorld.Rank rank = world.rank(0);
      CpuCommunicator communicator = rank.communicator();
      Stream stream = rank.device().defaultStream();
      DeviceBuffer small = rank.device().allocate(100);
      long stagingBytes = communicator.maxPeerMemoryBytes();
      DeviceBuffer large = rank.device().allocate(stagingBytes + 16);

      // One-shot runs through the staging area in passes, the ring through its channel slots:
      // neither has a size limit.
      communicator.allReduce(
          Algorithm.ONESHOT, large, large, (stagingBytes + 16) / 4, DType.FP32, stream);
      communicator.allReduce(
          Algorithm.RING, large, large, (stagingBytes + 16) / 4, DType.FP32, stream);
      stream.synchronize();

      assertThatThrownBy(
              () -> communicator.allReduce(Algorithm.TWOSHOT, small, small, 51, DType.BF16, stream))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("twoshot all-reduce: the input holds 100 bytes, the call needs 102");
      assertThatThrownBy(
              () -> communicator.allReduce(Algorithm.AUTO, small, small, 8, DType.BF16, stream))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("auto must be resolved by a heuristic");
      assertThatThrownBy(
              () -> communicator.allGather(Algorithm.TWOSHOT, small, small, 8, DType.BF16, stream))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allgather does not support algorithm twoshot");
      assertThatThrownBy(
              () -> communicator.broadcast(Algorithm.RING, small, small, 8, DType.BF16, 1, stream))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("ring broadcast: root 1 is not a rank of a world of 1");
      assertThatThrownBy(
              () -> communicator.allReduce(Algorithm.RING, small, small, -1, DType.BF16, stream))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("count must be >= 0");
    }
  }

  @Test
  void reportsItsAlgorithmsWithNcclRunningTheRing() {
    try (CpuWorld world = CpuWorld.start(1, CONFIG)) {
      CpuCommunicator communicator = world.rank(0).communicator();
      assertThat(communicator.allReduceAlgorithms())
          .containsExactlyInAnyOrder(
              Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING, Algorithm.HIERARCHICAL);
      assertThat(communicator.algorithms(Collective.ALLGATHER))
          .containsExactlyInAnyOrder(Algorithm.ONESHOT, Algorithm.COPYENGINE, Algorithm.RING);
      assertThat(communicator.algorithms(Collective.REDUCESCATTER))
          .containsExactlyInAnyOrder(Algorithm.ONESHOT, Algorithm.COPYENGINE, Algorithm.RING);
      assertThat(communicator.algorithms(Collective.BROADCAST))
          .containsExactlyInAnyOrder(Algorithm.ONESHOT, Algorithm.RING);
      assertThat(communicator.algorithms(Collective.COLLECTIVEPERMUTE)).isEmpty();
      assertThat(communicator.unavailableReason()).isEmpty();
      assertThat(communicator.maxPeerMemoryBytes()).isEqualTo(CONFIG.stagingBytes());
    }
  }

  @Test
  void buildingMapsEveryPeerOnceAndLeavesNoFilesBehind() throws IOException {
    CpuBackendConfig config = CONFIG.withSharedMemoryDirectory(Files.createTempDirectory("shm"));
    try (CpuWorld world = CpuWorld.start(4, config)) {
      for (int rank = 0; rank < 4; rank++) {
        assertThat(world.rank(rank).device().peerMappingCount()).isEqualTo(3);
        assertThat(world.rank(rank).communicator().topology())
            .isEqualTo(new RankTopology(rank, 4, rank, 4));
      }
      // Every rank has mapped every buffer, so the names are gone already.
      assertThat(filesIn(config.sharedMemoryDirectory())).isEmpty();
    }
    assertThat(filesIn(config.sharedMemoryDirectory())).isEmpty();
  }

  @Test
  void podsOfTheCpuBackendReachEachOtherOverTcpEvenOnOneHost() {
    try (CpuWorld twoPods = CpuWorld.start(new CpuWorld.Layout(2, 2), CONFIG);
        CpuWorld onePod = CpuWorld.start(2, CONFIG)) {
      assertThat(twoPods.rank(3).communicator().podLink())
          .isEqualTo(PodLink.network("tcp between pods"));
      assertThat(onePod.rank(0).communicator().podLink().kind()).isEqualTo(PodLink.Kind.UNKNOWN);
    }
  }

  @Test
  void aJobThatSpansPodsOffersRingAndHierarchicalAndRefusesPeerMemoryAlgorithmsSayingWhy() {
    try (CpuWorld world = CpuWorld.start(new CpuWorld.Layout(2, 2), CONFIG)) {
      CpuCommunicator communicator = world.rank(0).communicator();
      assertThat(communicator.allReduceAlgorithms())
          .containsExactlyInAnyOrder(Algorithm.RING, Algorithm.HIERARCHICAL);
      assertThat(communicator.algorithms(Collective.BROADCAST)).containsExactly(Algorithm.RING);
      assertThat(communicator.unavailableReason())
          .isEqualTo(
              "oneshot and twoshot read the peers' memory, which only the ranks of one pod share;"
                  + " this job spans 2 pods of 2 ranks");
      DeviceBuffer buffer = RankData.upload(world.rank(0).device(), DType.FP32, 4, 0);
      assertThatThrownBy(
              () ->
                  communicator.allReduce(
                      Algorithm.TWOSHOT,
                      buffer,
                      buffer,
                      4,
                      DType.FP32,
                      world.rank(0).device().defaultStream()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allreduce does not support algorithm twoshot on the cpu backend")
          .hasMessageContaining("only the ranks of one pod share");
      buffer.close();
    }
  }

  @Test
  void aRankOfAnotherPodThatClosesItsCommunicatorMakesItsTcpPeerGiveUpAtOnceNamingIt() {
    try (CpuWorld world =
        CpuWorld.start(new CpuWorld.Layout(2, 1), CONFIG.withWaitTimeout(Duration.ofSeconds(30)))) {
      long started = System.nanoTime();
      List<String> errors =
          world.onEveryRank(
              rank -> {
                Stream stream = rank.device().defaultStream();
                DeviceBuffer buffer = RankData.upload(rank.device(), DType.FP32, 64, rank.rank());
                if (rank.rank() == 1) {
                  rank.communicator().close();
                  return "closed";
                }
                rank.communicator()
                    .allReduce(Algorithm.RING, buffer, buffer, 64, DType.FP32, stream);
                return catchFailure(stream::synchronize).getMessage();
              });
      assertThat(errors.get(0))
          .contains("ring all-reduce on rank 0 gave up: rank 1 (pod 1)")
          .contains("it failed, exited or closed its communicator");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }
  }

  private static List<Path> filesIn(Path directory) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(directory)) {
      return files.toList();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Throwable catchFailure(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }
}
