package dev.gpucomm.runtime.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two pods of two ranks, the store next to rank 0, the second pod behind a link that a test cuts:
 * nothing resets, so only missing heartbeats tell either side.
 */
@Timeout(30)
class StoreHeartbeatTest {
  private static final Liveness QUICK = new Liveness(Duration.ofMillis(100), Duration.ofSeconds(1));
  private static final Duration LONG = Duration.ofSeconds(20);

  private TcpStoreServer server;
  private CuttableLink secondPodsLink;
  private final List<TcpStoreClient> ranks = new ArrayList<>();
  private final List<PeerWatch> watches = new ArrayList<>();
  private final List<AtomicReference<String>> heard = new ArrayList<>();

  @BeforeEach
  void startTwoPods() throws IOException {
    server = TcpStoreServer.start(InetAddress.getLoopbackAddress(), 0, QUICK);
    secondPodsLink = new CuttableLink(server.port());
    RendezvousAddress direct = new RendezvousAddress("127.0.0.1", server.port());
    for (int rank = 0; rank < 4; rank++) {
      RendezvousAddress route = rank < 2 ? direct : secondPodsLink.address();
      TcpStoreClient client = TcpStoreClient.connect(route, rank, 4, Duration.ofSeconds(5));
      AtomicReference<String> failure = new AtomicReference<>();
      ranks.add(client);
      watches.add(client.watchPeers(failure::set, QUICK));
      heard.add(failure);
    }
    await("every rank's first heartbeat")
        .atMost(Duration.ofSeconds(5))
        .until(() -> server.beatingRanks().size() == 4);
  }

  @AfterEach
  void stop() throws Exception {
    watches.forEach(PeerWatch::close);
    ranks.forEach(TcpStoreClient::abandon);
    secondPodsLink.close();
    server.close();
  }

  @Test
  void ranksThatKeepBeatingAreNeverDeclaredSilent() {
    await()
        .during(QUICK.silenceLimit().multipliedBy(2))
        .atMost(QUICK.silenceLimit().multipliedBy(3))
        .until(() -> server.failure().isEmpty() && heard.stream().allMatch(h -> h.get() == null));
  }

  @Test
  void aCutLinkFailsTheOtherPodsWaitsNamingTheCutPodsRanks() throws Exception {
    TcpStoreClient rank0 = ranks.get(0);
    CompletableFuture<Void> barrier =
        CompletableFuture.runAsync(() -> rank0.barrier("step", 4, LONG));

    secondPodsLink.cut();

    assertThatThrownBy(() -> barrier.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(PeerFailedException.class)
        .hasMessageContaining("ranks 2, 3 sent no heartbeat");
    await().atMost(Duration.ofSeconds(5)).until(() -> heard.get(0).get() != null);
    assertThat(heard.get(0).get()).contains("ranks 2, 3 sent no heartbeat");
    assertThat(heard.get(1).get()).contains("ranks 2, 3 sent no heartbeat");
    assertThat(server.failure()).hasValueSatisfying(f -> assertThat(f).contains("ranks 2, 3"));
  }

  @Test
  void theCutPodsRanksGiveUpOnTheStoreAfterTheStoreDeclaredThem() {
    secondPodsLink.cut();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> heard.get(2).get() != null && heard.get(3).get() != null);
    assertThat(heard.get(2).get())
        .contains("answered no heartbeat of rank 2")
        .contains("network link");
    assertThat(server.failure()).isPresent();
  }

  @Test
  void aRankThatClosesItsWatchIsNotMissed() {
    watches.get(3).close();

    await()
        .during(QUICK.silenceLimit().multipliedBy(2))
        .atMost(QUICK.silenceLimit().multipliedBy(3))
        .until(() -> server.failure().isEmpty());
  }
}
