package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both ranks of a pod refuse a tuning table of another GPU model, and rank 1 hears of rank 0's
 * refusal as it records its own: its launcher reads one whole error, rank 1's own.
 */
class RankErrorFileTest {
  /** Both ranks of a pod refuse a tuning table of another GPU model, one a moment first. */
  private static final String REFUSAL =
      "job.yaml: spec.heuristic: tuning table local-tuning has no curve measured on NVIDIA H200"
          + " (it measured NVIDIA H100 80GB HBM3); run gpucomm tune on this hardware, or name"
          + " another heuristic";

  private static final RankError OWN_REFUSAL = new RankError(RankError.Kind.USAGE, REFUSAL);

  /** What the store tells rank 1 of rank 0's refusal: the same words, longer. */
  private static final RankError PEERS_REFUSAL =
      new RankError(RankError.Kind.PEER, "rendezvous: rank 0 failed: " + REFUSAL);

  @TempDir Path folder;

  @Test
  void aPeersFailureHeardAfterTheRanksOwnDoesNotTakeItsPlace() {
    Path file = folder.resolve("rank-1.err");
    RankErrorFile errors = new RankErrorFile(file);

    errors.recordOwnFailure(OWN_REFUSAL);
    errors.recordPeerFailure(PEERS_REFUSAL);

    assertThat(RankError.readFrom(file)).contains(OWN_REFUSAL);
  }

  @Test
  void theRanksOwnFailureTakesThePlaceOfAPeersHeardBefore() {
    Path file = folder.resolve("rank-1.err");
    RankErrorFile errors = new RankErrorFile(file);

    errors.recordPeerFailure(PEERS_REFUSAL);
    errors.recordOwnFailure(OWN_REFUSAL);

    assertThat(RankError.readFrom(file)).contains(OWN_REFUSAL);
  }

  @Test
  void anErrorWrittenOverAnotherLeavesNothingButTheFile() throws IOException {
    Path file = folder.resolve("rank-1.err");

    PEERS_REFUSAL.writeTo(file);
    OWN_REFUSAL.writeTo(file);

    assertThat(Files.readString(file)).isEqualTo("USAGE\t" + REFUSAL + "\n");
    try (var files = Files.list(folder)) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void twoThreadsWritingErrorsAtOnceLeaveOneOfThemWhole() throws Exception {
    Path file = folder.resolve("rank-1.err");
    CyclicBarrier together = new CyclicBarrier(2);
    try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
      for (int round = 0; round < 300; round++) {
        Future<?> own = threads.submit(() -> writeTogether(together, OWN_REFUSAL, file));
        Future<?> peers = threads.submit(() -> writeTogether(together, PEERS_REFUSAL, file));
        own.get();
        peers.get();

        assertThat(Files.readString(file))
            .as("round %d", round)
            .isIn("USAGE\t" + REFUSAL + "\n", "PEER\trendezvous: rank 0 failed: " + REFUSAL + "\n");
      }
    }
    try (var files = Files.list(folder)) {
      assertThat(files).as("no partial error left beside the file").containsExactly(file);
    }
  }

  private static Void writeTogether(CyclicBarrier together, RankError error, Path file)
      throws Exception {
    together.await();
    error.writeTo(file);
    return null;
  }

  @Test
  void whenARanksOwnFailureAndAPeersMeetTheRanksOwnIsWhatItsLauncherReads() throws Exception {
    Path file = folder.resolve("rank-1.err");
    CyclicBarrier together = new CyclicBarrier(2);
    try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
      for (int round = 0; round < 300; round++) {
        RankErrorFile errors = new RankErrorFile(file);
        Future<?> own =
            threads.submit(
                () -> {
                  together.await();
                  errors.recordOwnFailure(OWN_REFUSAL);
                  return null;
                });
        Future<?> peers =
            threads.submit(
                () -> {
                  together.await();
                  errors.recordPeerFailure(PEERS_REFUSAL);
                  return null;
                });
        own.get();
        peers.get();

        assertThat(RankError.readFrom(file)).as("round %d", round).contains(OWN_REFUSAL);
      }
    }
  }
}
