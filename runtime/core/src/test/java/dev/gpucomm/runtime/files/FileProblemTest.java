package dev.gpucomm.runtime.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The JDK's file exceptions carry only a path as their message; these are the words a user reads
 * instead.
 */
class FileProblemTest {
  @Test
  void eachKindOfFileFailureHasItsOwnWords() {
    assertThat(FileProblem.of(new NoSuchFileException("/jobs/a.yaml"))).isEqualTo("no such file");
    assertThat(FileProblem.of(new AccessDeniedException("/jobs/a.yaml")))
        .isEqualTo("permission denied");
    assertThat(FileProblem.of(new NotDirectoryException("/jobs/a.yaml/b")))
        .isEqualTo("not a directory");
    assertThat(FileProblem.of(new FileAlreadyExistsException("/out/r")))
        .isEqualTo("already exists");
    assertThat(FileProblem.of(new DirectoryNotEmptyException("/out/r")))
        .isEqualTo("directory not empty");
    assertThat(FileProblem.of(new FileSystemLoopException("/data/loop")))
        .isEqualTo("a loop of symbolic links");
    assertThat(FileProblem.of(new MalformedInputException(1))).isEqualTo("not UTF-8 text");
    assertThat(FileProblem.of(new CharacterCodingException())).isEqualTo("not UTF-8 text");
    assertThat(FileProblem.of(new UnreadableFileException("larger than 1 MiB", true)))
        .isEqualTo("larger than 1 MiB");
  }

  @Test
  void otherFailuresGiveTheSystemsReasonOrAtLeastSayWhatKindTheyAre() {
    assertThat(FileProblem.of(new FileSystemException("/out/r", null, "Device or resource busy")))
        .isEqualTo("Device or resource busy");
    assertThat(FileProblem.of(new IOException("Stale file handle"))).isEqualTo("Stale file handle");
    assertThat(FileProblem.of(new IOException())).isEqualTo("an input/output error");
    assertThat(FileProblem.of(new FileSystemException("/out/r")))
        .isEqualTo("an input/output error");
  }

  @Test
  void locatedNamesTheFileTheSystemNamedOrBothFilesOfAMove() {
    assertThat(FileProblem.located(new AccessDeniedException("/out/r/report.json")))
        .isEqualTo("/out/r/report.json: permission denied");
    assertThat(
            FileProblem.located(
                new FileSystemException("/out/r", "/out/.r.old-1", "Operation not permitted")))
        .isEqualTo("/out/r -> /out/.r.old-1: Operation not permitted");
    assertThat(FileProblem.located(new IOException("No space left on device")))
        .isEqualTo("No space left on device");
  }

  @Test
  void aSentenceThatNamesTheFileAlreadyIsNotToldItAgain() {
    Path table = Path.of("/tables/t.json");

    assertThat(FileProblem.of(table, new AccessDeniedException("/tables/t.json")))
        .isEqualTo("permission denied");
    assertThat(FileProblem.of(table, new AccessDeniedException("/tables/.t.json.tmp")))
        .isEqualTo("/tables/.t.json.tmp: permission denied");
    assertThat(
            FileProblem.of(
                table,
                new FileSystemException(
                    "/tables/t.json", "/other/t.json", "Invalid cross-device link")))
        .isEqualTo("/tables/t.json -> /other/t.json: Invalid cross-device link");
  }

  @Test
  void bytesAreGivenInTheLargestWholeUnit() {
    assertThat(FileProblem.bytes(16 << 20)).isEqualTo("16 MiB");
    assertThat(FileProblem.bytes(64 << 10)).isEqualTo("64 KiB");
    assertThat(FileProblem.bytes(1536 << 10)).isEqualTo("1536 KiB");
    assertThat(FileProblem.bytes(100)).isEqualTo("100 bytes");
  }

  @Test
  void aFailureIsTiedToATemporaryByTheNameOfTheFileTheSystemNamed() {
    assertThat(
            FileProblem.concernsFileNamed(
                new NoSuchFileException("/out/.report.md.123.tmp"), ".report.md."))
        .isTrue();
    assertThat(
            FileProblem.concernsFileNamed(
                new FileSystemException(
                    "/out/.report.md.1.tmp", "/out/report.md", "Is a directory"),
                ".report.md."))
        .as("a move names the temporary first")
        .isTrue();
    assertThat(FileProblem.concernsFileNamed(new AccessDeniedException("/out"), ".report.md."))
        .isFalse();
    assertThat(FileProblem.concernsFileNamed(new NoSuchFileException("/"), ".")).isFalse();
    assertThat(FileProblem.concernsFileNamed(new IOException("disk full"), ".report.md."))
        .isFalse();
  }
}
