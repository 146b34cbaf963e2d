package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rank 0 says once what every rank saw, grouping ranks that saw the same. */
class FabricGatherTest {
  @Test
  void rankZeroNamesTheRankWhoseNcclFellBackToSockets() {
    InMemoryStore store = new InMemoryStore();
    FabricObservation nvlink = observation("via P2P/CUMEM/read");
    FabricObservation sockets = observation("[send] via NET/Socket/0");
    assertThat(FabricGather.gather(sockets, store, 2, 3, Duration.ofSeconds(5))).isEmpty();
    assertThat(FabricGather.gather(nvlink, store, 1, 3, Duration.ofSeconds(5))).isEmpty();

    List<String> all = FabricGather.gather(nvlink, store, 0, 3, Duration.ofSeconds(5));

    assertThat(FabricGather.describe(all))
        .containsExactly("ranks 0,1: intra-node p2p", "rank 2: inter-node socket");
  }

  private static FabricObservation observation(String via) {
    return FabricObservation.of(
        NcclTransportLog.parse(List.of("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] " + via)));
  }
}
