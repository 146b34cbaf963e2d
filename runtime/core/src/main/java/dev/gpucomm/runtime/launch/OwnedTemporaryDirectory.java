package dev.gpucomm.runtime.launch;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Temporary directories named after the process that made them ({@code <prefix><pid>-<random>}), so
 * that a later run can remove the ones whose maker is gone: a launcher killed with SIGKILL runs no
 * cleanup of its own. A reused process id only delays a removal until that process ends.
 */
final class OwnedTemporaryDirectory {
  private OwnedTemporaryDirectory() {}

  /** Creates a directory in {@code parent} named by {@code prefix} and this process's id. */
  static Path create(Path parent, String prefix) throws IOException {
    return Files.createTempDirectory(parent, prefix + ProcessHandle.current().pid() + "-");
  }

  /** Removes the directories in {@code parent} with {@code prefix} whose process has ended. */
  static void removeAbandoned(Path parent, String prefix) {
    List<Path> candidates;
    try (Stream<Path> entries = Files.list(parent)) {
      candidates = entries.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
    } catch (IOException e) {
      return; // nothing can be cleaned where nothing can be listed
    }
    for (Path candidate : candidates) {
      OptionalLong pid = makerOf(candidate.getFileName().toString().substring(prefix.length()));
      if (pid.isPresent() && !alive(pid.getAsLong()) && Files.isDirectory(candidate)) {
        deleteQuietly(candidate);
      }
    }
  }

  /** The process id at the start of {@code rest} ({@code <pid>-<random>}), if it is one. */
  static OptionalLong makerOf(String rest) {
    int dash = rest.indexOf('-');
    if (dash <= 0) {
      return OptionalLong.empty(); // an older name without a process id: left alone
    }
    try {
      return OptionalLong.of(Long.parseLong(rest.substring(0, dash)));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static void deleteQuietly(Path root) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                throws IOException {
              Files.delete(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.delete(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      // another user's, or in use: left for its owner
    }
  }
}
