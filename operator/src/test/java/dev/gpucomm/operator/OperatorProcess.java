package dev.gpucomm.operator;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged operator ({@code target/quarkus-app/quarkus-run.jar}, production profile) running as
 * a process of its own against an API server, as it runs in its pod.
 */
final class OperatorProcess implements AutoCloseable {
  static final Path APP = Path.of("target", "quarkus-app", "quarkus-run.jar");

  private final Process process;
  private final int httpPort;
  private final HttpClient http = HttpClient.newHttpClient();

  private OperatorProcess(Process process, int httpPort) {
    this.process = process;
    this.httpPort = httpPort;
  }

  /**
   * Starts the operator against {@code apiServerUrl}, logging to {@code log}, and waits until
   * ready.
   */
  static OperatorProcess start(
      String apiServerUrl, Path log, List<String> jvmOptions, Map<String, String> env) {
    if (!Files.exists(APP)) {
      throw new IllegalStateException(APP + " is missing: run the package phase first");
    }
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(APP.toString());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", apiServerUrl);
    builder.environment().put("QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true");
    builder.environment().put("QUARKUS_KUBERNETES_CLIENT_NAMESPACE", "test");
    builder.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
    builder.environment().put("GPUCOMM_OPERATOR_LEADER_ELECTION_ENABLED", "false");
    // env given by the test wins, leader election included
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    OperatorProcess operator;
    try {
      Files.createDirectories(log.getParent());
      operator = new OperatorProcess(builder.start(), port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!operator.process.isAlive()) {
                throw new IllegalStateException("the operator exited; see " + log);
              }
              return operator.ready();
            });
    return operator;
  }

  long pid() {
    return process.pid();
  }

  private boolean ready() {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort + "/q/health/ready"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Resident set size of the process, from /proc. */
  long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for process " + pid());
  }

  /** Ends the process as a crash or an OOM kill would: no shutdown hooks. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      kill();
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
