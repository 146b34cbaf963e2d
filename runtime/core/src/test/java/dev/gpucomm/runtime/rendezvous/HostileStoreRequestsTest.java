package dev.gpucomm.runtime.rendezvous;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store listens on the pod network, where anything may connect: a request with numbers no rank
 * sends gets a refusal, and the store goes on serving the job's ranks.
 */
@Timeout(30)
class HostileStoreRequestsTest {
  private TcpStoreServer server;
  private RendezvousAddress address;
  private TcpStoreClient rank0;

  @BeforeEach
  void startServer() throws IOException {
    server = TcpStoreServer.start(0);
    address = new RendezvousAddress("127.0.0.1", server.port());
    rank0 = TcpStoreClient.connect(address, 0, 1, Duration.ofSeconds(5));
  }

  @AfterEach
  void stop() {
    rank0.close();
    server.close();
  }

  @Test
  void aBarrierOfBillionsOfParticipantsIsRefusedNotCounted() throws IOException {
    // counting its missing ranks once filled the heap
    DataInputStream answer =
        send(
            new StoreProtocol.Frame(StoreProtocol.BARRIER)
                .writeString("b")
                .writeInt(1)
                .writeInt(Integer.MAX_VALUE)
                .writeInt(0)
                .writeLong(1));

    assertThat(answer.readByte()).isEqualTo(StoreProtocol.FAILED);
    answer.readInt(); // no value
    assertThat(answer.readUTF()).startsWith("rendezvous: barrier 'b' of 2147483647 participants");
    assertTheStoreStillServes();
  }

  @Test
  void aWaitOfCenturiesIsAWaitOfAtMostThirtyDaysAndStillAnswers() throws IOException {
    try (Socket socket = new Socket(address.host(), address.port())) {
      new StoreProtocol.Frame(StoreProtocol.GET)
          .writeString("later")
          .writeLong(Long.MAX_VALUE)
          .sendTo(socket.getOutputStream());
      rank0.set("later", "here".getBytes(UTF_8));

      DataInputStream answer = StoreProtocol.readFrame(socket.getInputStream());
      assertThat(answer.readByte()).isEqualTo(StoreProtocol.OK);
      assertThat(StoreProtocol.readBytes(answer)).asString(UTF_8).isEqualTo("here");
    }
    assertThat(StoreState.bounded(Duration.ofMillis(Long.MAX_VALUE)))
        .isEqualTo(Duration.ofDays(30));
    assertThat(StoreState.bounded(Duration.ofMillis(-5))).isEqualTo(Duration.ZERO);
  }

  @Test
  void addingToAKeyThatHoldsNoNumberIsRefused() throws IOException {
    rank0.set("text", "abc".getBytes(UTF_8));

    DataInputStream answer =
        send(new StoreProtocol.Frame(StoreProtocol.ADD).writeString("text").writeLong(1));

    assertThat(answer.readByte()).isEqualTo(StoreProtocol.FAILED);
    answer.readInt();
    assertThat(answer.readUTF())
        .isEqualTo("rendezvous: key 'text' holds no number that 1 can be added to");
    assertTheStoreStillServes();
  }

  @Test
  void frameHeadersAloneHoldNoMemory() throws IOException {
    // 64 connections at once, each announcing 64 MiB and sending 3 bytes: allocated up front,
    // 4 GiB would be held while the store waits for bytes that never come
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        Socket socket = new Socket(address.host(), address.port());
        open.add(socket);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(StoreProtocol.MAX_FRAME_BYTES);
        out.write(new byte[] {StoreProtocol.SET, 0, 1});
        out.flush();
      }
      assertTheStoreStillServes();
    } finally {
      for (Socket socket : open) {
        socket.close();
      }
    }
    assertTheStoreStillServes();
  }

  @Test
  void aFrameTheStoreCannotReadEndsOnlyItsOwnConnection() throws IOException {
    DataInputStream answer = send(new StoreProtocol.Frame((byte) 99));

    assertThat(answer).isNull(); // an unknown opcode: the stream ends, as a bad frame does
    DataInputStream refused =
        send(new StoreProtocol.Frame(StoreProtocol.SET).writeString("k").writeInt(-1));
    assertThat(refused).isNull();
    assertTheStoreStillServes();
  }

  @Test
  void oneConnectionCannotOpenThousandsOfWaits() throws IOException {
    try (Socket socket = new Socket(address.host(), address.port())) {
      for (int i = 0; i <= TcpStoreServer.MAX_WAITS_PER_CONNECTION; i++) {
        new StoreProtocol.Frame(StoreProtocol.GET)
            .writeString("never-" + i)
            .writeLong(60_000)
            .sendTo(socket.getOutputStream());
      }

      DataInputStream answer = StoreProtocol.readFrame(socket.getInputStream());
      assertThat(answer.readByte()).isEqualTo(StoreProtocol.FAILED);
      answer.readInt();
      assertThat(answer.readUTF()).isEqualTo("rendezvous: more than 1024 waits on one connection");
    }
    assertTheStoreStillServes();
  }

  @Test
  void valuesBeyondTheStoresBoundAreRefusedAndTheRestKept() {
    // eight values of just under 32 MiB: with their keys, 8 KiB short of the store's bound
    byte[] block = new byte[(32 << 20) - 1024];
    for (int i = 0; i < 8; i++) {
      rank0.set("block/" + i, block);
    }

    assertThatThrownBy(() -> rank0.set("one-more", new byte[8192]))
        .isInstanceOf(RendezvousException.class)
        .hasMessageStartingWith("rendezvous: the store holds at most 256 MiB");
    // replacing a value with a smaller one frees its room
    rank0.set("block/0", new byte[0]);
    rank0.set("one-more", new byte[8192]);
    assertTheStoreStillServes();
  }

  @Test
  void aStoreForAJobsWorldRefusesAStrangerWhoSaysAnotherInsteadOfLockingTheRanksOut()
      throws IOException {
    try (TcpStoreServer job = TcpStoreServer.startForWorld(null, 0, 2)) {
      RendezvousAddress at = new RendezvousAddress("127.0.0.1", job.port());

      assertThatThrownBy(() -> TcpStoreClient.connect(at, 0, 1, Duration.ofSeconds(5)))
          .isInstanceOf(RendezvousException.class)
          .hasMessageContaining("rank 0 says the world has 1 ranks, the job has 2");
      try (TcpStoreClient rank0 = TcpStoreClient.connect(at, 0, 2, Duration.ofSeconds(5));
          TcpStoreClient rank1 = TcpStoreClient.connect(at, 1, 2, Duration.ofSeconds(5))) {
        rank0.set("k", new byte[] {1});
        assertThat(rank1.get("k", Duration.ofSeconds(5))).containsExactly(1);
      }
    }
  }

  @Test
  void aHelloThatNamesARunNoLauncherGivesIsRefusedSayingWhatARunIdHolds() throws IOException {
    try (TcpStoreServer job = TcpStoreServer.startForRun(null, 0, 2, new RunId("uid/0"))) {
      DataInputStream answer =
          sendTo(
              job,
              new StoreProtocol.Frame(StoreProtocol.HELLO)
                  .writeInt(1)
                  .writeInt(2)
                  .writeString("uid/0\nrank 1 joined"));

      assertThat(answer.readByte()).isEqualTo(StoreProtocol.FAILED);
      assertThat(messageOf(answer))
          .isEqualTo(
              "rendezvous: rank 1 names a run that is no run id (at most 256 letters, digits"
                  + " and . _ : / -)");
    }
  }

  @Test
  void aHelloThatEndsAfterTheWorldIsOfARankThatNamesNoRun() throws IOException {
    try (TcpStoreServer named = TcpStoreServer.startForRun(null, 0, 2, new RunId("uid/0"));
        TcpStoreServer unnamed = TcpStoreServer.startForWorld(null, 0, 2)) {
      StoreProtocol.Frame hello =
          new StoreProtocol.Frame(StoreProtocol.HELLO).writeInt(1).writeInt(2);

      DataInputStream refused = sendTo(named, hello);
      DataInputStream welcomed = sendTo(unnamed, hello);

      assertThat(refused.readByte()).isEqualTo(StoreProtocol.FAILED);
      assertThat(messageOf(refused)).startsWith("rendezvous: rank 1 is of run (none), this store");
      assertThat(welcomed.readByte()).isEqualTo(StoreProtocol.OK);
    }
  }

  /** The message of an answer whose status byte was read: it follows the (empty) value. */
  private static String messageOf(DataInputStream answer) throws IOException {
    StoreProtocol.readBytes(answer);
    return answer.readUTF();
  }

  private static DataInputStream sendTo(TcpStoreServer store, StoreProtocol.Frame request)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", store.port())) {
      request.sendTo(socket.getOutputStream());
      return StoreProtocol.readFrame(socket.getInputStream());
    }
  }

  private DataInputStream send(StoreProtocol.Frame request) throws IOException {
    try (Socket socket = new Socket(address.host(), address.port())) {
      request.sendTo(socket.getOutputStream());
      return StoreProtocol.readFrame(socket.getInputStream());
    }
  }

  private void assertTheStoreStillServes() {
    rank0.set("alive", "yes".getBytes(UTF_8));
    assertThat(rank0.get("alive", Duration.ofSeconds(5))).asString(UTF_8).isEqualTo("yes");
  }
}
