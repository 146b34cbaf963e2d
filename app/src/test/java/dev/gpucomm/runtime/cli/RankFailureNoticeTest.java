package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.launch.RankErrorFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A rank's failure reaches its launcher's file, or else standard error: never nowhere. */
class RankFailureNoticeTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final CliContext context =
      new CliContext(
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8),
          Map.of(),
          false,
          false);

  @Test
  void aFailureGoesToTheErrorFileAndNotToStandardError() {
    Path file = dir.resolve("rank-1.error");
    RankCommand.FailureNotice notice =
        new RankCommand.FailureNotice(Optional.of(new RankErrorFile(file)), context, 1);

    RankError error = notice.ownFailure(new IllegalStateException("device lost"));

    assertThat(RankError.readFrom(file)).contains(error);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anErrorFileThatCannotBeWrittenLeavesTheFailureOnStandardErrorOnceAsItHappens()
      throws Exception {
    Path pipe = dir.resolve("rank-1.error");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    RankCommand.FailureNotice notice =
        new RankCommand.FailureNotice(Optional.of(new RankErrorFile(pipe)), context, 1);

    // as it happens, before a teardown that may never end; then again as the rank ends
    notice.ownFailure(new IllegalStateException("device lost"));
    notice.ownFailure(new IllegalStateException("device lost"));

    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("gpucomm rank 1: device lost" + System.lineSeparator());
    assertThat(Files.isRegularFile(pipe)).isFalse();
  }

  @Test
  void aRankWithoutAnErrorFileSaysItsFailureOnStandardErrorOnce() {
    RankCommand.FailureNotice notice = new RankCommand.FailureNotice(Optional.empty(), context, 0);

    notice.ownFailure(new IllegalStateException("device lost"));
    notice.ownFailure(new IllegalStateException("device lost"));

    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("gpucomm rank 0: device lost" + System.lineSeparator());
  }
}
