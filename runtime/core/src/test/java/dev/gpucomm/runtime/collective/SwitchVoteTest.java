package dev.gpucomm.runtime.collective;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Two pods of a job, one given GPUCOMM_NCCL=off: every rank says so at once, none waits. */
class SwitchVoteTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void ranksThatDisagreeOnAPathAllSaySoNamingTheirOwnState() throws Exception {
    List<Optional<String>> said =
        vote(List.of(true, false), List.of("usable", "NCCL is turned off (GPUCOMM_NCCL=off)"));

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
    assertThat(vote(List.of(true, true, true), List.of("usable", "usable", "usable")))
        .containsOnly(Optional.empty());
    assertThat(vote(List.of(false, false), List.of("off", "off"))).containsOnly(Optional.empty());
  }

  private static List<Optional<String>> vote(List<Boolean> usable, List<String> states)
      throws Exception {
    InMemoryStore store = new InMemoryStore();
    int world = usable.size();
    List<Optional<String>> said = new ArrayList<>();
    try (ExecutorService ranks = Executors.newFixedThreadPool(world)) {
      List<Future<Optional<String>>> votes = new ArrayList<>();
      for (int rank = 0; rank < world; rank++) {
        int r = rank;
        votes.add(
            ranks.submit(
                () ->
                    SwitchVote.disagreement(
                        store,
                        "comm/nccl-usable",
                        usable.get(r),
                        "NCCL",
                        states.get(r),
                        r,
                        world,
                        WAIT)));
      }
      for (Future<Optional<String>> vote : votes) {
        said.add(vote.get());
      }
    }
    return said;
  }
}
