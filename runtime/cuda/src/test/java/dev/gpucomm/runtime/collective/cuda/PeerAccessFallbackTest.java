package dev.gpucomm.runtime.collective.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** When peer memory cannot work, every rank learns it together and falls back to NCCL. */
class PeerAccessFallbackTest {
  @Test
  void oneRankFailingItsIpcCheckDisablesPeerMemoryOnEveryRankWithItsReason() throws Exception {
    InMemoryStore store = new InMemoryStore();
    int world = 4;
    List<PeerAccessVerdict> verdicts = new ArrayList<>();
    try (ExecutorService ranks = Executors.newFixedThreadPool(world)) {
      List<Future<PeerAccessVerdict>> futures = new ArrayList<>();
      for (int rank = 0; rank < world; rank++) {
        PeerAccessVerdict own =
            rank == 2
                ? PeerAccessVerdict.unavailable(
                    "opening local rank 0's memory: cuIpcOpenMemHandle failed on cuda device 2:"
                        + " CUDA_ERROR_INVALID_DEVICE")
                : PeerAccessVerdict.usable();
        int localRank = rank;
        futures.add(
            ranks.submit(
                () ->
                    PeerAccessVerdict.agree(
                        store, "job/node-0", localRank, world, own, Duration.ofSeconds(10))));
      }
      for (Future<PeerAccessVerdict> future : futures) {
        verdicts.add(future.get());
      }
    }

    assertThat(verdicts).hasSize(world).allSatisfy(v -> assertThat(v.available()).isFalse());
    assertThat(verdicts)
        .extracting(PeerAccessVerdict::reason)
        .containsOnly(verdicts.get(0).reason());
    assertThat(verdicts.get(0).reason())
        .startsWith("peer memory (CUDA IPC) check failed, local rank 2: ")
        .contains("CUDA_ERROR_INVALID_DEVICE");
  }

  @Test
  void whenEveryRankPassesThePeerAlgorithmsStayAvailable() {
    assertThat(PeerAccessVerdict.combine(List.of("ok", "ok")).available()).isTrue();
  }

  @Test
  void withoutPeerMemoryOnlyNcclRemainsForAllReduce() {
    assertThat(CudaCommunicator.allReduceAlgorithms(true, false)).containsExactly(Algorithm.NCCL);
    assertThat(CudaCommunicator.allReduceAlgorithms(true, true))
        .containsExactlyInAnyOrder(Algorithm.NCCL, Algorithm.ONESHOT, Algorithm.TWOSHOT);
    assertThat(CudaCommunicator.allReduceAlgorithms(false, true))
        .containsExactlyInAnyOrder(Algorithm.ONESHOT, Algorithm.TWOSHOT);
  }

  @Test
  void withoutGatherMemoryOnlyNcclRemainsForAllGatherAndReduceScatter() {
    assertThat(CudaCommunicator.gatherAlgorithms(true, false)).containsExactly(Algorithm.NCCL);
    assertThat(CudaCommunicator.gatherAlgorithms(true, true))
        .containsExactlyInAnyOrder(Algorithm.NCCL, Algorithm.ONESHOT, Algorithm.COPYENGINE);
    assertThat(CudaCommunicator.gatherAlgorithms(false, true))
        .containsExactlyInAnyOrder(Algorithm.ONESHOT, Algorithm.COPYENGINE);
  }

  @Test
  void ranksOnSeveralNodesNeverTryPeerMemory() {
    RankTopology twoNodes = new RankTopology(5, 8, 1, 4);

    assertThat(
            CudaCommunicatorParts.peerMemoryRefusal(twoNodes, CudaCommunicatorSettings.defaults()))
        .isEqualTo(
            "the ranks span 2 nodes and peer memory (CUDA IPC) only reaches the ranks of one node");
  }

  @Test
  void peerMemoryCanBeTurnedOffAndIsCappedAtEightRanksPerNode() {
    CudaCommunicatorSettings off =
        CudaCommunicatorSettings.from(java.util.Map.of("GPUCOMM_PEER_MEMORY", "off"));

    assertThat(CudaCommunicatorParts.peerMemoryRefusal(new RankTopology(0, 2, 0, 2), off))
        .contains("GPUCOMM_PEER_MEMORY=off");
    assertThat(
            CudaCommunicatorParts.peerMemoryRefusal(
                new RankTopology(0, 16, 0, 16), CudaCommunicatorSettings.defaults()))
        .contains("at most 8 ranks per node");
    assertThat(
            CudaCommunicatorParts.peerMemoryRefusal(
                new RankTopology(0, 4, 0, 4), CudaCommunicatorSettings.defaults()))
        .isEmpty();
  }

  @Test
  void theCheckReportsAWordThatDidNotArrive() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment words = arena.allocate(JAVA_INT, 32);
      // Rank 0 of 2: peer 1 wrote 0x11 as expected; the word rank 0 wrote into peer 1 reads 0.
      words.setAtIndex(JAVA_INT, 2, 0x11);
      words.setAtIndex(JAVA_INT, 3, 0);
      words.setAtIndex(JAVA_INT, 16 + 2, 0x11);
      words.setAtIndex(JAVA_INT, 16 + 3, 0x22);

      assertThat(PeerMemory.compare(words, 0, 2))
          .isEqualTo(
              "the word this rank wrote into local rank 1's memory reads back 0x00000000,"
                  + " expected 0x00000022");
      words.setAtIndex(JAVA_INT, 3, 0x22);
      assertThat(PeerMemory.compare(words, 0, 2)).isNull();
    }
  }
}
