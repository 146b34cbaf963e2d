package dev.gpucomm.runtime.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Stages and commits a one-file report at {@code args[0]}: a process of its own, with its umask.
 */
public final class StagedReportProbe {
  private StagedReportProbe() {}

  public static void main(String[] args) throws IOException {
    StagedReportDirectory staged = StagedReportDirectory.create(Path.of(args[0]));
    Files.writeString(staged.staging().resolve("report.json"), "{}");
    staged.commit();
  }
}
