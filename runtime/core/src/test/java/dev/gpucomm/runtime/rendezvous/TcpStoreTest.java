package dev.gpucomm.runtime.rendezvous;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class TcpStoreTest {
  private static final Duration SHORT = Duration.ofMillis(300);
  private static final Duration LONG = Duration.ofSeconds(20);

  private TcpStoreServer server;
  private RendezvousAddress address;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void startServer() throws IOException {
    server = TcpStoreServer.start(0);
    address = new RendezvousAddress("127.0.0.1", server.port());
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closeable : toClose.reversed()) {
      closeable.close();
    }
    server.close();
  }

  private TcpStoreClient rank(int rank, int world) {
    TcpStoreClient client = TcpStoreClient.connect(address, rank, world, Duration.ofSeconds(5));
    toClose.add(client);
    return client;
  }

  @Test
  void aPortAnotherStoreHoldsIsRefusedAsABindFailureNamingThePort() {
    assertThatThrownBy(() -> TcpStoreServer.start(InetAddress.getLoopbackAddress(), server.port()))
        .isInstanceOf(BindException.class)
        .hasMessageStartingWith("cannot listen on port " + server.port() + ": ");
  }

  @Test
  void aGetWaitsForTheKeyAnotherRankSets() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    TcpStoreClient rank1 = rank(1, 2);

    CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> rank1.get("uid", LONG));
    rank0.set("uid", "nccl-id-bytes".getBytes(UTF_8));

    assertThat(new String(waiting.get(), UTF_8)).isEqualTo("nccl-id-bytes");
    assertThat(rank0.get("uid", SHORT)).isEqualTo("nccl-id-bytes".getBytes(UTF_8));
  }

  @Test
  void aKeyNobodySetsTimesOutNamingTheKeyAndTheRanksThatNeverCame() {
    TcpStoreClient rank0 = rank(0, 3);
    rank(1, 3);

    assertThatThrownBy(() -> rank0.get("ipc/2", SHORT))
        .isInstanceOf(RendezvousTimeoutException.class)
        .hasMessage("rendezvous: key 'ipc/2' not set after 0.3 s (rank 2 of 3 never connected)");
  }

  @Test
  void aBarrierReleasesEveryRankOnceAllArrived() throws Exception {
    int world = 4;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> ranks = new ArrayList<>();
      for (int r = 0; r < world; r++) {
        TcpStoreClient client = rank(r, world);
        ranks.add(
            threads.submit(
                () -> {
                  client.barrier("start", world, LONG);
                  client.barrier("start", world, LONG); // a second round of the same name
                }));
      }
      for (Future<?> rank : ranks) {
        rank.get();
      }
    }
  }

  @Test
  void aBarrierThatTimesOutNamesTheMissingRanks() throws Exception {
    TcpStoreClient rank0 = rank(0, 4);
    TcpStoreClient rank1 = rank(1, 4);
    rank(2, 4);

    CompletableFuture<Void> other =
        CompletableFuture.runAsync(() -> rank1.barrier("start", 4, Duration.ofSeconds(1)));
    assertThatThrownBy(() -> rank0.barrier("start", 4, Duration.ofSeconds(1)))
        .isInstanceOf(RendezvousTimeoutException.class)
        .hasMessageMatching(
            "rendezvous: barrier 'start' timed out after 1\\.\\d s waiting for ranks 2, 3"
                + " \\(2 of 4 arrived; never connected: 3\\)");
    other.handle((ok, error) -> null).get();
  }

  @Test
  void aRankThatDiesMakesWaitsFailFastNamingIt() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    Socket rank1 = rawRankConnection(1, 2);

    CompletableFuture<Void> waiting =
        CompletableFuture.runAsync(() -> rank0.barrier("start", 2, LONG));
    rank1.close(); // the process died: no goodbye

    assertThat(waiting)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(PeerFailedException.class)
        .withMessage("rendezvous: rank 1 disconnected before barrier 'start' completed");
    assertThat(server.failure()).contains("rendezvous: rank 1 disconnected");
    assertThatThrownBy(() -> rank0.get("never", LONG))
        .isInstanceOf(PeerFailedException.class)
        .hasMessage("rendezvous: rank 1 disconnected while waiting for key 'never'");
  }

  @Test
  void aRankThatFailsTellsTheOthersWhyAsItLeaves() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    TcpStoreClient rank1 = rank(1, 2);
    AtomicReference<String> heard = new AtomicReference<>();
    toClose.add(rank0.watchPeers(heard::set));

    rank1.abandon("allreduce oneshot at 4 KiB:\n rank 1 output element 3 is wrong");

    await().atMost(Duration.ofSeconds(5)).untilAtomic(heard, org.hamcrest.Matchers.notNullValue());
    assertThat(heard.get())
        .isEqualTo(
            "rendezvous: rank 1 failed: allreduce oneshot at 4 KiB: rank 1 output element 3 is"
                + " wrong");
    assertThatThrownBy(() -> rank0.get("never", LONG))
        .isInstanceOf(PeerFailedException.class)
        .hasMessageStartingWith("rendezvous: rank 1 failed: allreduce oneshot at 4 KiB:");
  }

  @Test
  void aFailingRanksOwnWatchDoesNotReportItsFailureAsAnotherRanks() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    TcpStoreClient rank1 = rank(1, 2);
    AtomicReference<String> heardByRank0 = new AtomicReference<>();
    AtomicReference<String> heardByRank1 = new AtomicReference<>();
    toClose.add(rank0.watchPeers(heardByRank0::set));
    toClose.add(rank1.watchPeers(heardByRank1::set));

    rank1.abandon("out of device memory");

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAtomic(heardByRank0, org.hamcrest.Matchers.notNullValue());
    // the store's answer reaches rank 1's watch too; it must not halt rank 1 as a peer failure
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> heardByRank1.get() == null);
  }

  @Test
  void aFailingRankDoesNotWaitBehindItsOwnLongWaitToLeave() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    TcpStoreClient rank1 = rank(1, 2);
    CompletableFuture<byte[]> waiting =
        CompletableFuture.supplyAsync(() -> rank1.get("never", LONG));
    await().pollDelay(Duration.ofMillis(200)).until(() -> true); // the wait holds the connection

    long start = System.nanoTime();
    rank1.abandon("out of memory");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    assertThatThrownBy(() -> rank0.get("never", LONG))
        .isInstanceOf(PeerFailedException.class)
        .hasMessageStartingWith("rendezvous: rank 1 disconnected");
    assertThat(waiting).failsWithin(Duration.ofSeconds(5));
  }

  @Test
  void aRankThatLeavesCleanlyIsNotAFailure() {
    TcpStoreClient rank0 = rank(0, 2);
    TcpStoreClient rank1 = rank(1, 2);
    rank1.set("result/1", new byte[] {42});

    rank1.close();

    assertThat(rank0.get("result/1", SHORT)).containsExactly(42);
    assertThat(server.failure()).isEmpty();
  }

  @Test
  void watchersHearOfADeadRank() throws Exception {
    TcpStoreClient rank0 = rank(0, 2);
    Socket rank1 = rawRankConnection(1, 2);
    AtomicReference<String> heard = new AtomicReference<>();
    toClose.add(rank0.watchPeers(heard::set));

    rank1.close();

    await().atMost(Duration.ofSeconds(5)).untilAtomic(heard, org.hamcrest.Matchers.notNullValue());
    assertThat(heard.get()).isEqualTo("rendezvous: rank 1 disconnected");
  }

  @Test
  void manyClientsCountTogether() throws Exception {
    int clients = 64;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Long>> sums = new ArrayList<>();
      for (int r = 0; r < clients; r++) {
        int rank = r;
        sums.add(
            threads.submit(
                () -> {
                  TcpStoreClient client =
                      TcpStoreClient.connect(address, rank, clients, Duration.ofSeconds(10));
                  try (client) {
                    client.add("arrivals", 1);
                    client.barrier("counted", clients, LONG);
                    return client.add("arrivals", 0);
                  }
                }));
      }
      for (Future<Long> sum : sums) {
        assertThat(sum.get()).isEqualTo(clients);
      }
    }
    assertThat(server.failure()).isEmpty();
  }

  @Test
  void aClientWaitsForAStoreThatStartsLater() throws Exception {
    int port = freePort();
    RendezvousAddress later = new RendezvousAddress("127.0.0.1", port);
    CompletableFuture<TcpStoreClient> connecting =
        CompletableFuture.supplyAsync(
            () -> TcpStoreClient.connect(later, 0, 1, Duration.ofSeconds(20)));

    try (TcpStoreServer lateServer = TcpStoreServer.start(port);
        TcpStoreClient client = connecting.get()) {
      client.set("k", new byte[] {1});
      assertThat(client.get("k", SHORT)).containsExactly(1);
    }
  }

  @Test
  void anUnreachableStoreIsNamedAfterTheDeadline() throws Exception {
    RendezvousAddress nowhere = new RendezvousAddress("127.0.0.1", freePort());

    assertThatThrownBy(() -> TcpStoreClient.connect(nowhere, 0, 1, SHORT))
        .isInstanceOf(RendezvousException.class)
        .hasMessageStartingWith("rendezvous: cannot reach the store at " + nowhere + " after 0.")
        .hasMessageContaining("refused");
  }

  @Test
  void twoProcessesClaimingOneRankAreRefused() {
    rank(1, 2);

    assertThatThrownBy(() -> rank(1, 2))
        .isInstanceOf(RendezvousException.class)
        .hasMessage("rendezvous: rank 1 connected twice (two processes with RANK=1?)");
  }

  @Test
  void aRankOfAnotherRunIsRefusedAndLeavesItsPlaceToThisRunsRank() throws IOException {
    RunId thisRun = new RunId("0f5c2a9e-uid/1");
    try (TcpStoreServer store =
            TcpStoreServer.startForRun(InetAddress.getLoopbackAddress(), 0, 2, thisRun);
        TcpStoreClient rank0 = runRank(store, 0, thisRun)) {
      // rank 1 of the attempt before, still running as the next attempt's pods start
      assertThatThrownBy(() -> runRank(store, 1, new RunId("0f5c2a9e-uid/0")))
          .isInstanceOf(RendezvousException.class)
          .hasMessage(
              "rendezvous: rank 1 is of run 0f5c2a9e-uid/0, this store serves run 0f5c2a9e-uid/1"
                  + " (a rank of an earlier run or of another job; every rank of a run names the"
                  + " same run)");
      assertThatThrownBy(() -> runRank(store, 1, RunId.NONE))
          .hasMessageStartingWith("rendezvous: rank 1 is of run (none), this store serves run");

      try (TcpStoreClient rank1 = runRank(store, 1, thisRun)) {
        rank1.set("joined", new byte[] {1});
        assertThat(rank0.get("joined", LONG)).containsExactly(1);
      }
    }
  }

  private static TcpStoreClient runRank(TcpStoreServer store, int rank, RunId run) {
    return TcpStoreClient.connect(
        new RendezvousAddress("127.0.0.1", store.port()), rank, 2, run, Duration.ofSeconds(5));
  }

  @Test
  void closingTheStoreEndsOpenWaits() {
    TcpStoreClient rank0 = rank(0, 2);
    CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> rank0.get("x", LONG));

    server.close();

    assertThat(waiting)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(RendezvousException.class)
        .withMessageStartingWith("rendezvous: ");
  }

  /** A rank connection that can die without saying goodbye, as a crashed process does. */
  private Socket rawRankConnection(int rank, int world) throws IOException {
    Socket socket = new Socket(address.host(), address.port());
    new StoreProtocol.Frame(StoreProtocol.HELLO)
        .writeInt(rank)
        .writeInt(world)
        .sendTo(socket.getOutputStream());
    assertThat(StoreProtocol.readFrame(socket.getInputStream()).readByte())
        .isEqualTo(StoreProtocol.OK);
    return socket;
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }
}
