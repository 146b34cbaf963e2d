package dev.gpucomm.e2e.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The helm command line, for installing and removing the operator's chart in a real cluster. */
record Helm(String executable, Path kubeconfig) {

  void install(String release, Path chart, String namespace, Map<String, String> values) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "install",
                release,
                chart.toString(),
                "--namespace",
                namespace,
                "--wait",
                "--timeout",
                "5m"));
    values.forEach((key, value) -> command.addAll(List.of("--set", key + "=" + value)));
    run(command, 330);
  }

  void uninstall(String release, String namespace) {
    run(List.of("uninstall", release, "--namespace", namespace, "--wait"), 180);
  }

  private void run(List<String> arguments, long timeoutSeconds) {
    List<String> command = new ArrayList<>();
    command.add(executable);
    command.addAll(arguments);
    command.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    try {
      Path output = Files.createTempFile("helm", ".log");
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + ": timed out");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited "
                + process.exitValue()
                + ":\n"
                + Files.readString(output, StandardCharsets.UTF_8));
      }
      Files.deleteIfExists(output);
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + executable + ": is helm 3 installed?", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    }
  }
}
