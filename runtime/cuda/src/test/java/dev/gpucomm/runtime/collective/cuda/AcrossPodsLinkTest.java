package dev.gpucomm.runtime.collective.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.fabric.NcclTransportLog;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** What NCCL's cross-pod communicator connected the pods over, as the heuristic is told it. */
class AcrossPodsLinkTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void podsOfOneHostThatNcclConnectsOverNvlinkAreAPeerLink() {
    FabricObservation nvlink =
        seen(
            "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40/40, type NVL/PIX",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via P2P/CUMEM/read");

    assertThat(AcrossPodsLink.of(nvlink)).isEqualTo(PodLink.peer("intra-node p2p (NVL)"));
  }

  @Test
  void podsOfOneHostThatNcclConnectsThroughSharedMemoryAreAPeerLink() {
    FabricObservation shm = seen("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via SHM/direct");

    assertThat(AcrossPodsLink.of(shm)).isEqualTo(PodLink.peer("intra-node shm"));
  }

  @Test
  void podsThatNcclConnectsOverSocketsOrInfinibandAreANetworkLink() {
    FabricObservation sockets =
        seen(
            "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] [send] via NET/Socket/0");
    FabricObservation infiniband =
        seen(
            "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.2<0>",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] [send] via NET/IB/0/GDRDMA");

    assertThat(AcrossPodsLink.of(sockets)).isEqualTo(PodLink.network("inter-node socket via eth0"));
    assertThat(AcrossPodsLink.of(infiniband))
        .isEqualTo(PodLink.network("inter-node ib via mlx5_0:1"));
  }

  @Test
  void oneNetworkConnectionAmongPeerOnesMakesTheLinkANetwork() {
    FabricObservation mixed =
        seen(
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[2] via P2P/CUMEM/read",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/Socket/0");

    assertThat(AcrossPodsLink.of(mixed).kind()).isEqualTo(PodLink.Kind.NETWORK);
  }

  @Test
  void anUnreadLogOrOneWithoutConnectionsLeavesTheLinkUnknownSayingWhy() {
    FabricObservation usersLog =
        FabricObservation.unknown(
            "NCCL_DEBUG is set in the environment, so NCCL's log is the user's");
    FabricObservation noConnections = seen("h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2");

    assertThat(AcrossPodsLink.of(usersLog))
        .isEqualTo(
            PodLink.unknown(
                "NCCL's transports not recorded: NCCL_DEBUG is set in the environment, so"
                    + " NCCL's log is the user's"));
    assertThat(AcrossPodsLink.of(noConnections))
        .isEqualTo(PodLink.unknown("NCCL's log shows no connection between pods"));
  }

  @Test
  void everyRankAgreesOnAPeerLinkOnlyWhenEveryRankSawOne() throws Exception {
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");

    List<PodLink> agreed = agreeOnFourRanks(nvlink, nvlink, nvlink, nvlink);

    assertThat(agreed).containsOnly(nvlink);
  }

  @Test
  void oneRankThatCouldNotReadItsLogMakesTheJobsLinkUnknownNamingThatRank() throws Exception {
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");
    PodLink unread = PodLink.unknown("NCCL's transports not recorded: NCCL_DEBUG is set");

    List<PodLink> agreed = agreeOnFourRanks(nvlink, nvlink, unread, nvlink);

    assertThat(agreed)
        .containsOnly(PodLink.unknown("rank 2: NCCL's transports not recorded: NCCL_DEBUG is set"));
  }

  @Test
  void oneRankThatCrossesANetworkMakesTheJobsLinkANetwork() throws Exception {
    PodLink nvlink = PodLink.peer("intra-node p2p (NVL)");
    PodLink unread = PodLink.unknown("NCCL's transports not recorded");
    PodLink sockets = PodLink.network("inter-node socket via eth0");

    List<PodLink> agreed = agreeOnFourRanks(unread, nvlink, nvlink, sockets);

    assertThat(agreed).containsOnly(sockets);
  }

  /** Two pods of two ranks, each rank publishing what it saw; what each rank agreed on. */
  private static List<PodLink> agreeOnFourRanks(PodLink... seenByRank) throws Exception {
    InMemoryStore store = new InMemoryStore();
    ExecutorService ranks = Executors.newFixedThreadPool(seenByRank.length);
    try {
      List<Future<PodLink>> agreed = new ArrayList<>();
      for (int rank = 0; rank < seenByRank.length; rank++) {
        RankTopology topology = new RankTopology(rank, seenByRank.length, rank % 2, 2);
        PodLink own = seenByRank[rank];
        Callable<PodLink> agree =
            () -> AcrossPodsLink.agree(store, "job/pod-link", topology, own, TIMEOUT);
        agreed.add(ranks.submit(agree));
      }
      List<PodLink> links = new ArrayList<>();
      for (Future<PodLink> link : agreed) {
        links.add(link.get());
      }
      return links;
    } finally {
      ranks.shutdownNow();
    }
  }

  private static FabricObservation seen(String... lines) {
    return FabricObservation.of(NcclTransportLog.parse(List.of(lines)));
  }
}
