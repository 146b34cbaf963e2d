package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a launcher killed with SIGKILL leaves behind is removed by the next run, and only that. */
class AbandonedDirectoriesTest {
  @TempDir Path dir;

  private static long deadPid() throws Exception {
    Process process = new ProcessBuilder("true").start();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return process.pid();
  }

  @Test
  void aPartialReportOfAKilledLauncherIsRemovedByTheNextRunOfTheSameTarget() throws Exception {
    Path target = dir.resolve("report");
    Path abandoned = Files.createDirectory(dir.resolve(".report.partial-" + deadPid() + "-17"));
    Files.writeString(abandoned.resolve("report.json"), "{}");
    Path live =
        Files.createDirectory(
            dir.resolve(".report.partial-" + ProcessHandle.current().pid() + "-18"));
    Path older = Files.createDirectory(dir.resolve(".report.partial-123456"));

    StagedReportDirectory staged = StagedReportDirectory.create(target);

    assertThat(abandoned).doesNotExist();
    assertThat(live).as("its launcher still runs").exists();
    assertThat(older).as("no process id in its name: not ours to judge").exists();
    assertThat(staged.staging().getFileName().toString())
        .startsWith(".report.partial-" + ProcessHandle.current().pid() + "-");
    staged.discard();
  }

  @Test
  void aWorkDirectoryOfAKilledLauncherIsRemoved() throws Exception {
    Path abandoned = Files.createDirectory(dir.resolve("gpucomm-run-" + deadPid() + "-5"));
    Files.writeString(abandoned.resolve("job.json"), "{}");

    OwnedTemporaryDirectory.removeAbandoned(dir, "gpucomm-run-");

    assertThat(abandoned).doesNotExist();
  }

  @Test
  void aTargetAKilledProbeLeftAsideIsPutBackBeforeTheNextRunJudgesIt() throws Exception {
    Path target = dir.resolve("report");
    // killed between the probe's two renames: the earlier report aside, nothing in place
    Path aside = Files.createDirectory(dir.resolve(".report.probe-" + deadPid()));
    Files.writeString(aside.resolve("report.json"), "{\"old\": true}");

    assertThat(StagedReportDirectory.refusal(target)).isEmpty();

    assertThat(target.resolve("report.json")).hasContent("{\"old\": true}");
    assertThat(aside).doesNotExist();
  }

  @Test
  void aProbeLeftoverBesideItsTargetIsRemovedByTheNextRunOnlyWhenItsLauncherIsGone()
      throws Exception {
    Path target = Files.createDirectory(dir.resolve("report"));
    Files.writeString(target.resolve("report.json"), "{\"new\": true}");
    Path abandoned = Files.createDirectory(dir.resolve(".report.probe-" + deadPid()));
    Path live =
        Files.createDirectory(dir.resolve(".report.probe-" + ProcessHandle.current().pid()));
    Path notOurs = Files.createDirectory(dir.resolve(".report.probe-" + deadPid()));
    Files.writeString(notOurs.resolve("notes.txt"), "keep me");

    StagedReportDirectory staged = StagedReportDirectory.create(target);

    assertThat(abandoned).doesNotExist();
    assertThat(live).as("its launcher is still probing").exists();
    assertThat(notOurs.resolve("notes.txt")).as("neither empty nor a report").exists();
    assertThat(target.resolve("report.json")).hasContent("{\"new\": true}");
    staged.discard();
  }

  @Test
  void anExistingEmptyTargetIsProbedAndLeftInPlace() throws Exception {
    Path empty = Files.createDirectory(dir.resolve("empty"));

    assertThat(StagedReportDirectory.refusal(empty)).isEmpty();
    assertThat(empty).isEmptyDirectory();
    try (var entries = Files.list(dir)) {
      assertThat(entries).containsExactly(empty);
    }
  }
}
