package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.runtime.bench.TuneWorkload;
import dev.gpucomm.runtime.report.FabricFiles;
import dev.gpucomm.runtime.report.ReportFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class StagedReportDirectoryTest {
  @TempDir Path dir;

  @Test
  void aNewOrEmptyDirectoryTakesAReport() throws Exception {
    assertThat(StagedReportDirectory.refusal(dir.resolve("reports/new"))).isEmpty();
    assertThat(StagedReportDirectory.refusal(Files.createDirectory(dir.resolve("empty"))))
        .isEmpty();
  }

  @Test
  void anEarlierReportIsReplacedWhole() throws Exception {
    Path target = Files.createDirectories(dir.resolve("reports/sweep"));
    Files.writeString(target.resolve("report.json"), "{\"old\": true}");
    Files.writeString(target.resolve("latency.svg"), "<svg/>");
    assertThat(StagedReportDirectory.refusal(target)).isEmpty();

    StagedReportDirectory staged = StagedReportDirectory.create(target);
    Files.writeString(staged.staging().resolve("report.json"), "{\"new\": true}");
    staged.commit();

    assertThat(target.resolve("report.json")).hasContent("{\"new\": true}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rwxr-xr-x");
    assertThat(target.resolve("latency.svg")).doesNotExist();
    try (var left = Files.list(target.getParent())) {
      assertThat(left).containsExactly(target);
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aNewReportFolderHasTheModeTheUmaskLeaves() throws Exception {
    // the umask is the process's: a run of its own under 077, where any folder it makes is private
    Path target = dir.resolve("reports/new");
    List<String> probe =
        JavaCommand.ofCurrentJvm()
            .withMainClass(StagedReportProbe.class.getName())
            .command(List.of(target.toString()));
    List<String> underUmask =
        new ArrayList<>(List.of("/bin/sh", "-c", "umask 077 && exec \"$@\"", "sh"));
    underUmask.addAll(probe);

    Process run = new ProcessBuilder(underUmask).inheritIO().start();

    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).isZero();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rwx------");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aReportFolderItsOwnerMadePrivateStaysPrivate() throws Exception {
    Path target = Files.createDirectories(dir.resolve("reports/private"));
    Files.writeString(target.resolve("report.json"), "{\"old\": true}");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));

    StagedReportDirectory staged = StagedReportDirectory.create(target);
    Files.writeString(staged.staging().resolve("report.json"), "{\"new\": true}");
    staged.commit();

    assertThat(target.resolve("report.json")).hasContent("{\"new\": true}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rwx------");
  }

  @Test
  void aReportSetAsideByAKilledCommitIsPutBackByTheNextRun() throws Exception {
    Path reports = Files.createDirectories(dir.resolve("reports"));
    // killed between the two renames: the earlier report aside, nothing in place
    Path aside = Files.createDirectory(reports.resolve(".sweep.old-123"));
    Files.writeString(aside.resolve("report.json"), "{\"old\": true}");

    StagedReportDirectory next = StagedReportDirectory.create(reports.resolve("sweep"));
    next.discard(); // this run failed too

    assertThat(reports.resolve("sweep/report.json")).hasContent("{\"old\": true}");
    assertThat(aside).doesNotExist();
  }

  @Test
  void aReportLeftAsideAfterItsReplacementLandedIsRemoved() throws Exception {
    Path reports = Files.createDirectories(dir.resolve("reports"));
    Path current = Files.createDirectory(reports.resolve("sweep"));
    Files.writeString(current.resolve("report.json"), "{\"new\": true}");
    // killed after the second rename, before the old one was deleted
    Path aside = Files.createDirectory(reports.resolve(".sweep.old-456"));
    Files.writeString(aside.resolve("report.json"), "{\"old\": true}");
    Path notOurs = Files.createDirectory(reports.resolve(".sweep.old-notes"));

    StagedReportDirectory.create(reports.resolve("sweep")).discard();

    assertThat(current.resolve("report.json")).hasContent("{\"new\": true}");
    assertThat(aside).doesNotExist();
    assertThat(notOurs).as("no report.json: not set aside by gpucomm").exists();
  }

  @Test
  void aCommitWhoseStagedFilesVanishedSaysWhatIsMissing() throws Exception {
    Path target = dir.resolve("reports/sweep");
    StagedReportDirectory staged = StagedReportDirectory.create(target);
    Files.delete(staged.staging()); // a cleaner of hidden or temporary directories got there first

    assertThatThrownBy(staged::commit)
        .hasMessage(
            "cannot move the report into "
                + target
                + ": "
                + staged.staging()
                + " -> "
                + target
                + ": no such file");
  }

  @Test
  void otherFilesAreNeverReplaced() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.writeString(home.resolve("thesis.tex"), "years of work");
    assertThat(StagedReportDirectory.refusal(home))
        .hasValue(
            "holds files that are not a gpucomm report (no report.json); name a new or empty"
                + " directory");
    Path project = Files.createDirectories(dir.resolve("project"));
    Files.writeString(project.resolve("report.json"), "{}");
    Files.writeString(project.resolve("README"), "keep me");
    Files.createDirectories(project.resolve("src"));
    assertThat(StagedReportDirectory.refusal(project))
        .as("a report.json alone does not make the folder a report")
        .hasValue(
            "holds files that are not part of a gpucomm report (README, src); name a new or empty"
                + " directory");
    Path file = Files.writeString(dir.resolve("notes.txt"), "x");
    assertThat(StagedReportDirectory.refusal(file)).hasValue("is a file, not a directory");
    assertThat(StagedReportDirectory.refusal(file.resolve("a/b")))
        .hasValue("cannot be created: " + file + " is a file");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aFolderThatTakesNoNewDirectoryIsRefusedBeforeTheRun() {
    // /proc passes the permission check for root, and refuses the directory only when made;
    // other users are refused by the check
    assertThat(StagedReportDirectory.refusal(Path.of("/proc/gpucomm-report")))
        .hasValueSatisfying(
            problem ->
                assertThat(problem)
                    .isIn(
                        "cannot be created in /proc (no such file)",
                        "cannot be created: /proc is not writable"));
    assertThat(StagedReportDirectory.refusal(dir.resolve("new/report")))
        .as("a folder that takes one is not refused, and the trial leaves nothing")
        .isEmpty();
    assertThat(dir.resolve("new")).doesNotExist();
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aFolderThatTakesNoNewDirectoryIsSaidOfTheTargetNotOfTheStagingDirectory() {
    Path target = Path.of("/proc/gpucomm-report");

    assertThatThrownBy(() -> StagedReportDirectory.create(target))
        .hasMessage("cannot create the report directory " + target + ": no such file");
  }

  @Test
  void aLinkIsRefusedWhetherItNamesAReportOrNothing() throws Exception {
    Path report = Files.createDirectories(dir.resolve("report"));
    Files.writeString(report.resolve(ReportFiles.JSON), "{}");
    Path latest = Files.createSymbolicLink(dir.resolve("latest"), report);
    Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("gone"));

    assertThat(StagedReportDirectory.refusal(latest))
        .hasValue("is a symbolic link; name the directory itself");
    assertThat(StagedReportDirectory.refusal(dangling))
        .hasValue("is a symbolic link; name the directory itself");
    assertThat(Files.isSymbolicLink(latest)).isTrue();
  }

  @Test
  void anEmptyPathOrTheRootIsRefused() {
    assertThat(StagedReportDirectory.refusal(Path.of(""))).hasValue("is empty");
    assertThat(StagedReportDirectory.refusal(Path.of("/"))).hasValue("is the root directory");
  }

  @Test
  void everyFileAReportHoldsIsOneThatMayBeReplaced() {
    for (String name :
        List.of(
            ReportFiles.JSON,
            ReportFiles.CSV,
            ReportFiles.MARKDOWN,
            ReportFiles.SVG,
            FabricFiles.PODS_SVG,
            FabricFiles.nodeSvg(12),
            TuneWorkload.TABLE_FILE)) {
      assertThat(StagedReportDirectory.isReportFile(name)).as(name).isTrue();
    }
    assertThat(StagedReportDirectory.isReportFile("report.json.bak")).isFalse();
    assertThat(StagedReportDirectory.isReportFile("thesis.tex")).isFalse();
  }
}
