package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.gpucomm.api.v1alpha1.report.FabricLines;
import dev.gpucomm.api.v1alpha1.report.RankFabric;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every rank's transports, per communicator, reach rank 0 for the report. */
class RankFabricGatherTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @Test
  void twoPodsOfOneRankReportTheWorldAndTheAcrossPodsCommunicatorOfEveryRank() {
    InMemoryStore store = new InMemoryStore();
    FabricObservation overSockets =
        FabricObservation.of(
            NcclTransportLog.parse(
                List.of(
                    "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>",
                    "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0")));
    List<CommunicatorFabric> rankOne =
        List.of(
            new CommunicatorFabric(CommunicatorFabric.WORLD, overSockets),
            new CommunicatorFabric(CommunicatorFabric.ACROSS_PODS, overSockets));
    List<CommunicatorFabric> rankZero =
        List.of(
            new CommunicatorFabric(CommunicatorFabric.WORLD, overSockets),
            new CommunicatorFabric(
                CommunicatorFabric.ACROSS_PODS,
                FabricObservation.unknown("NCCL_DEBUG is set in the environment")));

    assertThat(RankFabricGather.gather(rankOne, store, "bench/fabric", 1, 2, TIMEOUT)).isEmpty();
    List<RankFabric> all = RankFabricGather.gather(rankZero, store, "bench/fabric", 0, 2, TIMEOUT);

    assertThat(all)
        .extracting(RankFabric::communicator, RankFabric::rank)
        .containsExactly(
            tuple("world", 0), tuple("across-pods", 0), tuple("world", 1), tuple("across-pods", 1));
    RankFabric rankOneAcross = all.get(3);
    assertThat(rankOneAcross.interNode()).containsExactly("socket");
    assertThat(rankOneAcross.intraNode()).isEmpty();
    assertThat(rankOneAcross.nics()).containsExactly("eth0");
    assertThat(all.get(1).unknownReason()).isEqualTo("NCCL_DEBUG is set in the environment");
    assertThat(FabricLines.of(all))
        .containsExactly(
            "world, ranks 0,1: inter-node socket via eth0",
            "across-pods, rank 0: not recorded: NCCL_DEBUG is set in the environment",
            "across-pods, rank 1: inter-node socket via eth0");
  }

  @Test
  void aRankWithoutNcclPublishesNothingAndTheOthersStillGather() {
    InMemoryStore store = new InMemoryStore();

    RankFabricGather.gather(List.of(), store, "tune/fabric", 1, 2, TIMEOUT);

    assertThat(RankFabricGather.gather(List.of(), store, "tune/fabric", 0, 2, TIMEOUT)).isEmpty();
  }
}
