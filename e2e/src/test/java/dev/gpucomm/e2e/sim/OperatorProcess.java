package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The packaged operator application (Quarkus fast-jar) run as its own process against an API
 * server, the way its Deployment runs it in a cluster; it can be stopped, killed and started again.
 */
public final class OperatorProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OperatorProcess.class);
  private static final String STARTED_LINE = "Installed features";

  private final Path java;
  private final Path application;
  private final String apiServerUrl;
  private final Map<String, String> properties;
  private final Path logDirectory;
  private Process process;
  private Path currentLog;
  private int starts;

  public OperatorProcess(
      Path java,
      Path application,
      String apiServerUrl,
      Map<String, String> properties,
      Path logDirectory) {
    this.java = java;
    this.application = application;
    this.apiServerUrl = apiServerUrl;
    this.properties = Map.copyOf(properties);
    this.logDirectory = logDirectory;
  }

  /** Starts the operator and waits until Quarkus reports it started (its controllers run). */
  public synchronized void start(Duration timeout) {
    if (!Files.isRegularFile(application)) {
      throw new IllegalStateException(
          "no operator application at " + application + ": build the operator module first");
    }
    Map<String, String> system = new LinkedHashMap<>();
    system.put("quarkus.kubernetes-client.api-server-url", apiServerUrl);
    system.put("quarkus.kubernetes-client.trust-certs", "true");
    system.put("kubernetes.auth.tryKubeConfig", "false");
    system.put("kubernetes.auth.tryServiceAccount", "false");
    system.put("quarkus.http.host", "127.0.0.1");
    system.put("quarkus.http.port", Integer.toString(FreePort.pick()));
    system.put("quarkus.management.port", Integer.toString(FreePort.pick()));
    system.putAll(properties);
    List<String> line = new ArrayList<>();
    line.add(java.toString());
    line.add("-XX:TieredStopAtLevel=1");
    line.add("-XX:+UseSerialGC");
    line.add("-Xmx384m");
    line.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    system.forEach((k, v) -> line.add("-D" + k + "=" + v));
    line.add("-jar");
    line.add(application.toString());
    try {
      Files.createDirectories(logDirectory);
      starts++;
      currentLog = logDirectory.resolve("operator-" + starts + ".log");
      ProcessBuilder builder =
          new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(currentLog.toFile());
      // The operator must talk only to the API server it is given, never to a kubeconfig's.
      builder.environment().remove("KUBECONFIG");
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LOG.info("operator started as process {} (log {})", process.pid(), currentLog);
    awaitStarted(timeout);
  }

  private void awaitStarted(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "operator exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (logTail().contains(STARTED_LINE)) {
        return;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(100); // polling a log file: there is no event to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the operator started", e);
      }
    }
    throw new IllegalStateException("operator not started after " + timeout + ":\n" + logTail());
  }

  /** Stops the operator as Kubernetes stops a pod: SIGTERM, SIGKILL if it does not exit. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    process = null;
  }

  /** Kills the operator without warning, as a node failure or an OOM kill would. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The log files of every start so far, oldest first. */
  public List<Path> logs() {
    List<Path> logs = new ArrayList<>();
    for (int i = 1; i <= starts; i++) {
      logs.add(logDirectory.resolve("operator-" + i + ".log"));
    }
    return logs;
  }

  private String logTail() {
    try {
      String log = Files.readString(currentLog, StandardCharsets.UTF_8);
      return log.length() > 8000 ? log.substring(log.length() - 8000) : log;
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() {
    stop();
  }
}
