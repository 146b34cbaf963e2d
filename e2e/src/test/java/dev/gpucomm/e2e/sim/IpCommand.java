package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code ip} and {@code tc}, turning a failure into an exception naming the command. */
final class IpCommand {
  private static final long TIMEOUT_SECONDS = 20;

  record Result(int exitCode, String output) {}

  private IpCommand() {}

  static void run(String... command) {
    run(List.of(command));
  }

  static void run(List<String> command) {
    Result result = attempt(command);
    if (result.exitCode() != 0) {
      throw new IllegalStateException(
          String.join(" ", command)
              + " failed (exit "
              + result.exitCode()
              + "): "
              + result.output().strip());
    }
  }

  static void runIgnoringFailure(String... command) {
    attempt(List.of(command));
  }

  static List<String> output(String... command) {
    Result result = attempt(List.of(command));
    return result.exitCode() == 0 ? result.output().lines().toList() : List.of();
  }

  static Result attempt(String... command) {
    return attempt(List.of(command));
  }

  static Result attempt(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(124, "timed out after " + TIMEOUT_SECONDS + " s");
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      return new Result(127, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(130, "interrupted");
    }
  }

  /** The effective uid of this process, from /proc/self/status ("Uid: real effective ..."). */
  static long effectiveUid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return Long.parseLong(line.substring(4).strip().split("\\s+")[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // unknown: treated as not root
    }
    return -1;
  }
}
