package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankErrorCopierTest {
  private static final String NOTICE = "WARNING: Using incubator modules: jdk.incubator.vector\n";

  @Test
  void theJvmsNoticeBeforeTheRanksOwnOutputIsLeftOutAndTheRestPasses() {
    String rankError =
        NOTICE
            + "rank 1: peer 0 closed the connection\n"
            + "WARNING: Using incubator modules: jdk.incubator.vector, jdk.other\n"
            + "last line without an end";

    assertThat(copied(inPieces(rankError, 7)))
        .isEqualTo(
            "rank 1: peer 0 closed the connection\n"
                + "WARNING: Using incubator modules: jdk.incubator.vector, jdk.other\n"
                + "last line without an end");
  }

  @Test
  void outputThatOnlyBeginsLikeTheNoticePassesWhole() {
    String rankError = "WARNING: Using incubator modules: jdk.incubator.other\nrank 0 failed\n";

    assertThat(copied(inPieces(rankError, 5))).isEqualTo(rankError);
    assertThat(copied(inPieces("WARNING: Using", 3))).isEqualTo("WARNING: Using");
  }

  @Test
  void aProgressLineRedrawnWithoutANewlineReachesTheTerminalAsItIsDrawn() throws Exception {
    PipedOutputStream rank = new PipedOutputStream();
    PipedInputStream rankError = new PipedInputStream(rank);
    ByteArrayOutputStream terminal = new ByteArrayOutputStream();
    Thread copier = Thread.ofVirtual().start(() -> RankErrorCopier.copy(rankError, terminal));

    rank.write((NOTICE + "\rsize 1/4 (16 KB) · ring").getBytes(StandardCharsets.UTF_8));
    rank.flush();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> text(terminal).equals("\rsize 1/4 (16 KB) · ring"));
    rank.write("\rsize 2/4 (64 KB) · ring".getBytes(StandardCharsets.UTF_8));
    rank.flush();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> text(terminal).endsWith("2/4 (64 KB) · ring"));
    rank.close();
    copier.join(Duration.ofSeconds(10));
    assertThat(copier.isAlive()).isFalse();
  }

  private static String text(ByteArrayOutputStream stream) {
    synchronized (stream) {
      return stream.toString(StandardCharsets.UTF_8);
    }
  }

  private static String copied(InputStream rankError) {
    ByteArrayOutputStream launcherError = new ByteArrayOutputStream();
    RankErrorCopier.copy(rankError, launcherError);
    return launcherError.toString(StandardCharsets.UTF_8);
  }

  /** The text as a rank's pipe delivers it: in reads that do not follow lines. */
  private static InputStream inPieces(String text, int piece) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<InputStream> pieces = new ArrayList<>();
    for (int start = 0; start < bytes.length; start += piece) {
      int length = Math.min(piece, bytes.length - start);
      pieces.add(new ByteArrayInputStream(bytes, start, length));
    }
    return new SequenceInputStream(Collections.enumeration(pieces));
  }
}
