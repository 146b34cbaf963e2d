package dev.gpucomm.runtime.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Pods of a job given different settings (one GPUCOMM_NCCL=off): every rank says so at once, none
 * waits. Each rank votes through its own client of a real store, as ranks do.
 */
class SwitchVoteTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** One rank's ballot: the group it votes in (a node, or the world), and its own state. */
  private record Ballot(String key, int participants, boolean usable, String state) {}

  @Test
  void ranksThatDisagreeOnAPathAllSaySoNamingTheirOwnState() throws Exception {
    List<Optional<String>> said =
        vote(
            new Ballot("comm/nccl-usable", 2, true, "usable"),
            new Ballot("comm/nccl-usable", 2, false, "NCCL is turned off (GPUCOMM_NCCL=off)"));

    assertThat(said.get(0))
        .contains(
            "NCCL is usable on 1 of 2 ranks (rank 0: usable): the ranks must all use it or none;"
                + " give every pod the same settings and libraries");
    assertThat(said.get(1))
        .hasValueSatisfying(
            line ->
                assertThat(line)
                    .startsWith(
                        "NCCL is usable on 1 of 2 ranks (rank 1: NCCL is turned off"
                            + " (GPUCOMM_NCCL=off))"));
  }

  @Test
  void ranksThatAllUseAPathOrAllGoWithoutItAgree() throws Exception {
    assertThat(
            vote(
                new Ballot("comm/nccl-usable", 3, true, "usable"),
                new Ballot("comm/nccl-usable", 3, true, "usable"),
                new Ballot("comm/nccl-usable", 3, true, "usable")))
        .containsOnly(Optional.empty());
    assertThat(
            vote(
                new Ballot("comm/nccl-usable", 2, false, "off"),
                new Ballot("comm/nccl-usable", 2, false, "off")))
        .containsOnly(Optional.empty());
  }

  @Test
  void eachNodeCountsItsOwnRanks() throws Exception {
    List<Optional<String>> said =
        vote(
            new Ballot("comm/node-0/peer-memory-on", 2, true, "on"),
            new Ballot("comm/node-0/peer-memory-on", 2, false, "turned off"),
            new Ballot("comm/node-1/peer-memory-on", 2, true, "on"),
            new Ballot("comm/node-1/peer-memory-on", 2, true, "on"));

    assertThat(said.get(0)).hasValueSatisfying(line -> assertThat(line).contains("1 of 2 ranks"));
    assertThat(said.get(1)).isPresent();
    assertThat(said.subList(2, 4)).containsOnly(Optional.empty());
  }

  @Test
  void aVoteTakenTwiceUnderOneKeyIsRefusedNotMiscounted() throws Exception {
    Ballot once = new Ballot("comm/nccl-usable", 1, true, "usable");
    try (TcpStoreServer server = TcpStoreServer.start(0);
        TcpStoreClient store =
            TcpStoreClient.connect(new RendezvousAddress("127.0.0.1", server.port()), 0, 1, WAIT)) {
      assertThat(cast(store, once, 0)).isEmpty();

      assertThatThrownBy(() -> cast(store, once, 0))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("a vote was taken twice under one key");
    }
  }

  private static Optional<String> cast(TcpStoreClient store, Ballot ballot, int rank) {
    return SwitchVote.disagreement(
        store,
        ballot.key(),
        ballot.usable(),
        ballot.key().contains("nccl") ? "NCCL" : "peer memory",
        ballot.state(),
        rank,
        ballot.participants(),
        WAIT);
  }

  /** Every ballot cast by its rank (its index) at once, each rank with its own store client. */
  private static List<Optional<String>> vote(Ballot... ballots) throws Exception {
    int world = ballots.length;
    List<Optional<String>> said = new ArrayList<>();
    try (TcpStoreServer server = TcpStoreServer.start(0);
        ExecutorService ranks = Executors.newFixedThreadPool(world)) {
      RendezvousAddress address = new RendezvousAddress("127.0.0.1", server.port());
      List<Future<Optional<String>>> votes = new ArrayList<>();
      for (int rank = 0; rank < world; rank++) {
        int r = rank;
        votes.add(
            ranks.submit(
                () -> {
                  try (TcpStoreClient store = TcpStoreClient.connect(address, r, world, WAIT)) {
                    return cast(store, ballots[r], r);
                  }
                }));
      }
      for (Future<Optional<String>> vote : votes) {
        said.add(vote.get(30, TimeUnit.SECONDS));
      }
    }
    return said;
  }
}
