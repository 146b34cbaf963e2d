package dev.gpucomm.runtime.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a supervised rank tells its supervisor that it started, and that it ran to the end: marks
 * beside its error file. An exit status of 0 alone does not say it: a JVM given {@code -version} in
 * GPUCOMM_JAVA_OPTS exits 0 without running the rank, and a job of such ranks would pass with no
 * report or check. Nor does a status of 1 say whose it is: the JVM's own, refusing an option, or
 * the rank's.
 */
public final class RankCompletion {
  private RankCompletion() {}

  /** Marks the rank whose error file is {@code errorFile} as started; its first act. */
  public static void markStarted(Path errorFile) {
    try {
      Files.writeString(startMarkOf(errorFile), "");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot tell the launcher that this rank started: " + e.getMessage(), e);
    }
  }

  /** Whether the rank whose error file is {@code errorFile} started: its JVM ran gpucomm's code. */
  static boolean started(Path errorFile) {
    return Files.exists(startMarkOf(errorFile));
  }

  private static Path startMarkOf(Path errorFile) {
    return errorFile.resolveSibling(errorFile.getFileName() + ".started");
  }

  /** Marks the rank whose error file is {@code errorFile} as finished; its last act on success. */
  public static void markFinished(Path errorFile) {
    try {
      Files.writeString(markOf(errorFile), "");
    } catch (IOException e) {
      // unmarked, the supervisor would take the success for an early exit: say why instead
      throw new UncheckedIOException(
          "cannot tell the launcher that this rank finished: " + e.getMessage(), e);
    }
  }

  /** Whether the rank whose error file is {@code errorFile} marked itself finished. */
  static boolean finished(Path errorFile) {
    return Files.exists(markOf(errorFile));
  }

  private static Path markOf(Path errorFile) {
    return errorFile.resolveSibling(errorFile.getFileName() + ".finished");
  }
}
