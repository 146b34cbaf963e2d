package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankErrorCopierTest {
  @Test
  void theJvmsVectorModuleNoticeIsLeftOutAndEverythingElsePasses() {
    String rankError =
        "WARNING: Using incubator modules: jdk.incubator.vector\n"
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
  void aLineLongerThanWhatIsHeldPassesInFull() {
    String longLine = "x".repeat(3 * RankErrorCopier.LONGEST_HELD + 5) + "\n";

    assertThat(copied(inPieces(longLine, 8192))).isEqualTo(longLine);
  }

  private static String copied(InputStream rankError) {
    ByteArrayOutputStream launcherError = new ByteArrayOutputStream();
    RankErrorCopier.copy(rankError, launcherError);
    return launcherError.toString(StandardCharsets.UTF_8);
  }

  /** The text as a rank's pipe delivers it: in reads that do not follow lines. */
  private static InputStream inPieces(String text, int piece) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<InputStream> pieces = new java.util.ArrayList<>();
    for (int start = 0; start < bytes.length; start += piece) {
      int length = Math.min(piece, bytes.length - start);
      pieces.add(new ByteArrayInputStream(bytes, start, length));
    }
    return new SequenceInputStream(Collections.enumeration(pieces));
  }
}
