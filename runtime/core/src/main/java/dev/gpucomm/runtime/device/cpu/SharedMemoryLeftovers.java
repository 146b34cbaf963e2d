package dev.gpucomm.runtime.device.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Removes the shared-memory files of a rank process that is gone. A rank removes its files itself
 * once its peers have opened them, but a rank that dies before (killed while the communicator is
 * set up, or its launcher interrupted) cannot; on /dev/shm they would hold memory until reboot. The
 * file names carry the creating process's pid, so whoever started the rank can find them.
 */
public final class SharedMemoryLeftovers {
  private SharedMemoryLeftovers() {}

  /** Removes what process {@code pid} left in the default shared-memory directory; the count. */
  public static int removeFilesOf(long pid) {
    return removeFilesOf(CpuBackendConfig.defaultSharedMemoryDirectory(), pid);
  }

  static int removeFilesOf(Path directory, long pid) {
    Pattern own =
        Pattern.compile(Pattern.quote(SharedMemoryFiles.PREFIX) + ".+-l\\d+-p" + pid + "-\\d+");
    int removed = 0;
    try (var files = Files.list(directory)) {
      for (Path file :
          files.filter(f -> own.matcher(f.getFileName().toString()).matches()).toList()) {
        if (Files.deleteIfExists(file)) {
          removed++;
        }
      }
    } catch (IOException e) {
      // Best effort: a file that cannot be listed or removed stays, as it would have anyway.
    }
    return removed;
  }
}
