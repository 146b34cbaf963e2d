package dev.gpucomm.runtime.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What a folder holds, by name: what tests of whole-or-nothing writes look at. */
public final class FolderNames {
  private FolderNames() {}

  /** The names of the entries of {@code directory}, sorted. */
  public static List<String> of(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(path -> path.getFileName().toString()).sorted().toList();
    }
  }
}
