package dev.gpucomm.runtime.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.gpucomm.runtime.testing.FolderNames;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class ReplacingFileTest {
  @TempDir Path folder;

  @Test
  void anExistingFileIsReplacedWholeAndReadableByAll() throws IOException {
    Path file = folder.resolve("tuning.json");
    Files.writeString(file, "the old table, longer than the new one");

    ReplacingFile.writeString(file, "new");

    assertThat(Files.readString(file)).isEqualTo("new");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
    assertThat(FolderNames.of(folder)).containsExactly("tuning.json");
  }

  @Test
  void aMissingFolderIsCreated() throws IOException {
    Path file = folder.resolve("a/b/report.md");

    ReplacingFile.writeString(file, "# report\n");

    assertThat(Files.readString(file)).isEqualTo("# report\n");
  }

  @Test
  void aWriteThatCannotBeMovedIntoPlaceLeavesWhatWasThereAndNoTemporary() throws IOException {
    Path occupied = folder.resolve("report.md");
    Files.createDirectory(occupied);
    Files.writeString(occupied.resolve("kept"), "kept");

    assertThatThrownBy(() -> ReplacingFile.writeString(occupied, "text"))
        .isInstanceOf(FileSystemException.class)
        .extracting(e -> ((FileSystemException) e).getFile())
        .as("the failure is said of the file asked for, not of the temporary beside it")
        .isEqualTo(occupied.toString());

    assertThat(FolderNames.of(folder)).containsExactly("report.md");
    assertThat(Files.readString(occupied.resolve("kept"))).isEqualTo("kept");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aFolderThatTakesNoNewFileIsSaidOfTheFileAskedFor() {
    Path file = Path.of("/proc/gpucomm-table.json");

    assertThatThrownBy(() -> ReplacingFile.writeString(file, "{}"))
        .isInstanceOf(FileSystemException.class)
        .hasMessage(file + ": no such file");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aTrialBeforeTheWorkRefusesWhatTheWriteWouldAndLeavesNothing() throws IOException {
    Path table = folder.resolve("tuning.json");

    ReplacingFile.tryReplacing(table);

    assertThat(FolderNames.of(folder)).as("the trial's temporary is gone").isEmpty();
    assertThatThrownBy(() -> ReplacingFile.tryReplacing(Path.of("/proc/gpucomm-table.json")))
        .isInstanceOf(FileSystemException.class)
        .hasMessage("/proc/gpucomm-table.json: no such file");
    assertThatThrownBy(() -> ReplacingFile.tryReplacing(folder.resolve("missing/tuning.json")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessage(folder.resolve("missing").toString());
  }

  @Test
  void aFolderWhereTheFileShouldBeIsRefusedBeforeTheWork() throws IOException {
    Path empty = Files.createDirectory(folder.resolve("diag.json"));

    assertThatThrownBy(() -> ReplacingFile.tryReplacing(empty))
        .isInstanceOf(FileSystemException.class)
        .hasMessage(empty + ": is a folder");
    assertThatThrownBy(() -> ReplacingFile.writeString(empty, "[]"))
        .isInstanceOf(FileSystemException.class);
    assertThat(empty).isDirectory();
    assertThat(FolderNames.of(folder)).containsExactly("diag.json");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aPrivateFileStaysPrivateAndANewOneIsMadeAsAnyNewFile() throws IOException {
    Path secret = Files.writeString(folder.resolve("table.json"), "old");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    Path sibling = Files.createFile(folder.resolve("made-by-hand"));

    ReplacingFile.writeString(secret, "new");
    Path fresh = folder.resolve("fresh.json");
    ReplacingFile.writeString(fresh, "new");

    assertThat(secret).hasContent("new");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
        .isEqualTo("rw-------");
    // the umask decides, as for the file made by hand beside it
    assertThat(Files.getPosixFilePermissions(fresh))
        .isEqualTo(Files.getPosixFilePermissions(sibling));
  }

  @Test
  void aReadOnlyFileIsNotReplaced() throws IOException {
    assumeFalse("root".equals(System.getProperty("user.name")), "root may write any file");
    Path table = Files.writeString(folder.resolve("tuning.json"), "kept");
    Files.setPosixFilePermissions(table, PosixFilePermissions.fromString("r--r--r--"));

    assertThatThrownBy(() -> ReplacingFile.writeString(table, "new"))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> ReplacingFile.tryReplacing(table))
        .isInstanceOf(AccessDeniedException.class);
    assertThat(table).hasContent("kept");
  }

  @Test
  void aLinkIsWrittenThroughAndStaysALink() throws IOException {
    Path real = Files.writeString(folder.resolve("2026-11-28.md"), "old");
    Path link = Files.createSymbolicLink(folder.resolve("latest.md"), real.getFileName());

    ReplacingFile.writeString(link, "new");

    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.readString(real)).isEqualTo("new");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aPipeOrDeviceIsNeverReplacedByAFile() throws Exception {
    Path pipe = folder.resolve("pipe");
    assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();

    assertThatThrownBy(() -> ReplacingFile.writeString(pipe, "text"))
        .hasMessage(pipe + ": not a regular file");

    assertThat(Files.isRegularFile(pipe)).isFalse();
    assertThat(Files.exists(pipe)).isTrue();
  }
}
