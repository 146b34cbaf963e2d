package dev.gpucomm.e2e.sim;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
      Process process = new ProcessBuilder(located(command)).redirectErrorStream(true).start();
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

  /**
   * Where PATH leaves the system directories out (a root shell from {@code su} on Debian keeps the
   * user's PATH), {@code tc} is not found though it is installed: a tool PATH does not name is
   * taken from /usr/sbin or /sbin.
   */
  private static List<String> located(List<String> command) {
    String tool = command.getFirst();
    if (tool.contains("/") || onPath(tool)) {
      return command;
    }
    for (String directory : SYSTEM_DIRECTORIES) {
      Path candidate = Path.of(directory, tool);
      if (Files.isExecutable(candidate)) {
        List<String> located = new ArrayList<>(command);
        located.set(0, candidate.toString());
        return located;
      }
    }
    return command;
  }

  private static final List<String> SYSTEM_DIRECTORIES = List.of("/usr/sbin", "/sbin");

  private static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    return path != null
        && Arrays.stream(path.split(File.pathSeparator))
            .filter(directory -> !directory.isEmpty())
            .anyMatch(directory -> Files.isExecutable(Path.of(directory, tool)));
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
