package dev.gpucomm.runtime.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class HostMemoryTest {
  @TempDir Path dir;

  @Test
  void memAvailableIsReadInBytes() throws Exception {
    Path meminfo =
        Files.writeString(
            dir.resolve("meminfo"),
            "MemTotal:       16384000 kB\nMemFree:         1000000 kB\n"
                + "MemAvailable:    8192000 kB\nBuffers:          100000 kB\n");

    assertThat(new HostMemory(meminfo).availableBytes()).hasValue(8192000L * 1024);
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aMeminfoThatIsAPipeOrADeviceGivesNoFigureAtOnce() throws Exception {
    Path pipe = dir.resolve("meminfo");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");

    assertThat(new HostMemory(pipe).availableBytes()).isEqualTo(OptionalLong.empty());
    assertThat(new HostMemory(Path.of("/dev/zero")).availableBytes()).isEmpty();
  }
}
