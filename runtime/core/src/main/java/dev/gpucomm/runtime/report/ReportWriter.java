package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.runtime.files.ReplacingFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * Writes a report's files into a directory without leaving anything half-written: every format is
 * rendered in memory first, each file is written to a temporary file in the same directory, and
 * only when all are written are they moved into place (atomic renames where the file system
 * allows). Any failure up to then leaves the directory's files as they were; temporary files are
 * always removed.
 */
public final class ReportWriter {
  /** Writes one file's content; the seam tests use to make a write fail. */
  @FunctionalInterface
  interface ContentWriter {
    void write(Path file, String content) throws IOException;
  }

  private ReportWriter() {}

  /**
   * Writes every format of {@code report} into {@code directory} (created if missing).
   *
   * @return the files written, in {@link ReportFiles#render} order
   */
  public static List<Path> write(Path directory, Report report) throws IOException {
    return writeAll(
        directory,
        ReportFiles.render(report),
        (file, content) -> Files.writeString(file, content, StandardCharsets.UTF_8));
  }

  static List<Path> writeAll(
      Path directory, SequencedMap<String, String> files, ContentWriter writer) throws IOException {
    Files.createDirectories(directory);
    List<Path> targets = new ArrayList<>();
    for (String name : files.keySet()) {
      Path target = directory.resolve(name);
      if (!directory.equals(target.getParent())) {
        throw new IllegalArgumentException("report file name '" + name + "' leaves " + directory);
      }
      if (Files.isDirectory(target)) {
        throw new IOException("cannot write " + target + ": a directory is in the way");
      }
      targets.add(target);
    }
    List<Path> temporaries = new ArrayList<>();
    try {
      for (Map.Entry<String, String> file : files.entrySet()) {
        Path temporary = ReplacingFile.temporaryBeside(directory, file.getKey());
        temporaries.add(temporary);
        writer.write(temporary, file.getValue());
      }
      for (int i = 0; i < temporaries.size(); i++) {
        ReplacingFile.moveIntoPlace(temporaries.get(i), targets.get(i));
      }
      return List.copyOf(targets);
    } finally {
      for (Path temporary : temporaries) {
        Files.deleteIfExists(temporary);
      }
    }
  }
}
