package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Where the FFM bindings look for a library, and what they refuse to hand the loader. */
class NativeLibrariesTest {
  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aFifoWhereALibraryShouldBeIsRefusedWithoutBlockingTheLoader(@TempDir Path folder)
      throws Exception {
    Path fifo = folder.resolve("libgpucomm-test-absent.so.1");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();
    List<String> failures = new ArrayList<>();

    var loaded =
        NativeLibraries.load(
            null, List.of("libgpucomm-test-absent.so.1"), List.of(folder), failures);

    assertThat(loaded).isEmpty();
    assertThat(failures).contains(fifo + ": not a regular file");
  }
}
