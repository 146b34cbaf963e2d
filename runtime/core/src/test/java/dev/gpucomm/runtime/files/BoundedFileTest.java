package dev.gpucomm.runtime.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class BoundedFileTest {
  @TempDir Path dir;

  @Test
  void aDeviceIsRefusedWithoutReadingIt() {
    assumeTrue(Files.exists(Path.of("/dev/zero")), "/dev/zero");

    assertThatThrownBy(() -> BoundedFile.readText(Path.of("/dev/zero"), 1 << 20))
        .isInstanceOf(UnreadableFileException.class)
        .hasMessage("not a regular file (a character device)");
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aNamedPipeWithNoWriterIsRefusedAtOnce() throws Exception {
    Path pipe = dir.resolve("pipe");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");

    assertThatThrownBy(() -> BoundedFile.readText(pipe, 1 << 20))
        .hasMessage("not a regular file (a named pipe)");
  }

  @Test
  void aFileOverTheLimitIsRefusedAndSaysTheLimit() throws Exception {
    Path big = Files.write(dir.resolve("big.json"), new byte[(64 << 10) + 1]);

    assertThatThrownBy(() -> BoundedFile.readText(big, 64 << 10))
        .isInstanceOfSatisfying(
            UnreadableFileException.class, e -> assertThat(e.tooLarge()).isTrue())
        .hasMessage("larger than 64 KiB");
  }

  @Test
  void directoriesMissingFilesAndBinaryAreSaidInWords() throws Exception {
    Path binary = Files.write(dir.resolve("x.bin"), new byte[] {(byte) 0xff, (byte) 0xfe});

    assertThatThrownBy(() -> BoundedFile.readText(dir, 100)).hasMessage("is a directory");
    assertThatThrownBy(() -> BoundedFile.readText(dir.resolve("none"), 100))
        .hasMessage("no such file");
    assertThatThrownBy(() -> BoundedFile.readText(binary, 100)).hasMessage("not UTF-8 text");
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void checkingAFileForALibraryRefusesWhatReadingWouldAndOpensNothing() throws Exception {
    Path pipe = dir.resolve("kubeconfig");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    Path big = Files.write(dir.resolve("big.yaml"), new byte[101]);
    Path fits = Files.write(dir.resolve("ok.yaml"), new byte[100]);

    assertThatThrownBy(() -> BoundedFile.check(pipe, 100))
        .hasMessage("not a regular file (a named pipe)");
    assertThatThrownBy(() -> BoundedFile.check(big, 100)).hasMessage("larger than 100 bytes");
    assertThatThrownBy(() -> BoundedFile.check(dir, 100)).hasMessage("is a directory");
    BoundedFile.check(fits, 100);
  }

  @Test
  void aRegularFileWithinTheLimitIsRead() throws Exception {
    Path file = Files.writeString(dir.resolve("ok.txt"), "héllo");

    assertThat(BoundedFile.readText(file, 6)).isEqualTo("héllo");
  }
}
