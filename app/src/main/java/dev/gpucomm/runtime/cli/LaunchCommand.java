package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.launch.JavaCommand;
import dev.gpucomm.runtime.launch.PodLaunch;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.launch.SupervisionResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code gpucomm launch}: what a pod's container runs. Starts the pod's ranks from the operator's
 * GPUCOMM_* variables, supervises them, and leaves the failing rank's one-line error in the
 * container's termination message, where the operator reads it.
 */
@Command(
    name = "launch",
    description = "run this pod's ranks (reads GPUCOMM_* from the operator; used inside pods)",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n")
final class LaunchCommand implements Callable<Integer> {
  /** Kubernetes keeps at most 4096 bytes of a termination message. */
  static final int TERMINATION_MESSAGE_LIMIT = 4096;

  static final String DEFAULT_TERMINATION_LOG = "/dev/termination-log";

  private final CliContext context;

  LaunchCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    try {
      PodLaunch.PodSettings pod = PodLaunch.PodSettings.fromEnv(context.env());
      SupervisionResult result =
          new PodLaunch(
                  JavaCommand.ofCurrentJvm(context.env()), context.rankEnvironment(), context.out())
              .run(pod, context.progress());
      if (result.exitCode() != 0) {
        context.err().println("gpucomm launch: " + result.message());
        writeTerminationMessage(context, result.message());
      }
      return result.exitCode();
    } catch (RuntimeException e) {
      writeTerminationMessage(context, Gpucomm.describe(e));
      throw e;
    }
  }

  /** {@code text} as UTF-8, cut to at most {@code limit} bytes at a character boundary. */
  static byte[] withinBytes(String text, int limit) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= limit) {
      return bytes;
    }
    int end = limit;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--; // bytes[end] continues a character that starts before it: cut before that character
    }
    return java.util.Arrays.copyOf(bytes, end);
  }

  /**
   * Best effort: a pod without the file (or a local test) still gets the error on stderr. The
   * default file is written only where it exists (the kubelet mounts it into every container), so
   * that {@code gpucomm launch} run by root outside a pod does not create files in /dev.
   */
  static void writeTerminationMessage(CliContext context, String message) {
    String configured = context.env().get(EnvVars.TERMINATION_LOG);
    Path file = Path.of(configured != null ? configured : DEFAULT_TERMINATION_LOG);
    if (configured == null && !Files.isRegularFile(file)) {
      return;
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      return; // a fifo would block the launcher's exit until someone read it; a device is no log
    }
    byte[] bytes = withinBytes(RankError.oneLine(message), TERMINATION_MESSAGE_LIMIT);
    try {
      Files.write(file, bytes);
    } catch (IOException | SecurityException ignored) {
      // Not in a container (or not writable): the message is on stderr already.
    }
  }
}
