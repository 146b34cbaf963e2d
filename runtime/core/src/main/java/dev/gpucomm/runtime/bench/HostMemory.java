package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Host memory the kernel says can be allocated without swapping ({@code MemAvailable} of
 * /proc/meminfo), so that a sweep refuses a size it cannot hold instead of being killed by the
 * out-of-memory killer once it touches the pages (allocation itself rarely fails on Linux).
 */
final class HostMemory {
  /** /proc/meminfo is a few kilobytes; the reader reports no figure rather than read more. */
  private static final int MAX_MEMINFO_BYTES = 64 << 10;

  private final Path meminfo;

  HostMemory(Path meminfo) {
    this.meminfo = meminfo;
  }

  static HostMemory system() {
    return new HostMemory(Path.of("/proc/meminfo"));
  }

  /** Bytes available now; empty where the file is missing or unreadable (not Linux). */
  OptionalLong availableBytes() {
    String text;
    try {
      text = BoundedFile.readText(meminfo, MAX_MEMINFO_BYTES);
    } catch (UnreadableFileException e) {
      return OptionalLong.empty();
    }
    for (String line : text.split("\n")) {
      if (line.startsWith("MemAvailable:")) {
        String[] fields = line.substring("MemAvailable:".length()).trim().split("\\s+");
        try {
          return OptionalLong.of(Long.parseLong(fields[0]) * 1024);
        } catch (NumberFormatException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }
}
