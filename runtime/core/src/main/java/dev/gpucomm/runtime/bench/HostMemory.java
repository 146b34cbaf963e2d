package dev.gpucomm.runtime.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Host memory the kernel says can be allocated without swapping ({@code MemAvailable} of
 * /proc/meminfo), so that a sweep refuses a size it cannot hold instead of being killed by the
 * out-of-memory killer once it touches the pages (allocation itself rarely fails on Linux).
 */
final class HostMemory {
  private final Path meminfo;

  HostMemory(Path meminfo) {
    this.meminfo = meminfo;
  }

  static HostMemory system() {
    return new HostMemory(Path.of("/proc/meminfo"));
  }

  /** Bytes available now; empty where the file is missing or unreadable (not Linux). */
  OptionalLong availableBytes() {
    try {
      for (String line : Files.readAllLines(meminfo)) {
        if (line.startsWith("MemAvailable:")) {
          String[] fields = line.substring("MemAvailable:".length()).trim().split("\\s+");
          return OptionalLong.of(Long.parseLong(fields[0]) * 1024);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }
}
