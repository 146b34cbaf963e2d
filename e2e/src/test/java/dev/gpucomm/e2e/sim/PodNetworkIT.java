package dev.gpucomm.e2e.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.e2e.sim.PodNetwork.LinkLimit;
import dev.gpucomm.e2e.sim.PodNetwork.PodLink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pods on the simulated pod network reach each other across a real network stack: through the
 * bridge, no faster than a rate-limited link allows, and not at all once a link is cut.
 */
@RequiresNetworkNamespaces
class PodNetworkIT {
  private static final int PORT = 7000;
  private static PodNetwork network;

  @TempDir Path work;
  private PodLink client;
  private PodLink server;
  private final List<Process> processes = new ArrayList<>();

  @BeforeAll
  static void createNetwork() {
    network = PodNetwork.acquire();
  }

  @AfterAll
  static void removeNetwork() {
    if (network != null) {
      network.close();
    }
  }

  @BeforeEach
  void attachTwoPods() {
    client = network.attach("gc-probe-a", network.allocateAddress(), Map.of());
    server = network.attach("gc-probe-b", network.allocateAddress(), Map.of());
  }

  @AfterEach
  void detachThem() {
    processes.forEach(Process::destroyForcibly);
    network.detach(client);
    network.detach(server);
  }

  @Test
  void aProcessInOnePodReachesAServerInAnotherThroughTheBridge() throws Exception {
    Path serverLog = serve(server);

    Probe sent = probe(client, "send", server.address(), Integer.toString(PORT), "1000000");

    assertThat(sent.exitCode()).as(sent.output()).isZero();
    await("the server counted the bytes")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Files.readString(serverLog).contains("received 1000000 from /" + client.address()));
  }

  @Test
  void aRateLimitedLinkCarriesNoMoreThanItsRate() throws Exception {
    serve(server);
    network.limit(client, new LinkLimit("16mbit", "32kb", "200ms"));

    // 4 MB at 16 Mbit/s (2 MB/s) take two seconds; the bucket's burst saves a few milliseconds.
    Probe sent = probe(client, "send", server.address(), Integer.toString(PORT), "4000000");

    assertThat(sent.exitCode()).as(sent.output()).isZero();
    assertThat(sentMillis(sent)).as(sent.output()).isGreaterThanOrEqualTo(1800);
  }

  @Test
  void aCutLinkCarriesNothing() throws Exception {
    serve(server);
    String port = Integer.toString(PORT);
    assertThat(probe(client, "connect", server.address(), port, "5000").exitCode()).isZero();

    network.cut(client);

    Probe afterCut = probe(client, "connect", server.address(), port, "2000");
    assertThat(afterCut.exitCode()).as(afterCut.output()).isEqualTo(1);
    assertThat(afterCut.output()).startsWith("failed:");
  }

  @Test
  void aPodsNamesResolveThroughItsOwnHostsFile() throws Exception {
    PodLink named =
        network.attach(
            "gc-probe-c",
            network.allocateAddress(),
            Map.of("probe-b.probe.gpucomm-e2e.svc", server.address()));
    try {
      serve(server);
      Probe sent = probe(named, "send", "probe-b.probe.gpucomm-e2e.svc", "" + PORT, "1000");
      assertThat(sent.exitCode()).as(sent.output()).isZero();
    } finally {
      network.detach(named);
    }
  }

  /** Starts NetProbe's server in the pod and waits until it listens; returns its log. */
  private Path serve(PodLink pod) throws IOException {
    Path log = work.resolve(pod.namespace() + "-server.log");
    Process process =
        new ProcessBuilder(command(pod, "serve", Integer.toString(PORT)))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    processes.add(process);
    await("server in " + pod.namespace() + " listening")
        .atMost(Duration.ofSeconds(20))
        .until(() -> Files.readString(log).contains("listening"));
    return log;
  }

  private Probe probe(PodLink pod, String... args) throws Exception {
    Process process = new ProcessBuilder(command(pod, args)).redirectErrorStream(true).start();
    processes.add(process);
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("NetProbe ended").isTrue();
    return new Probe(process.exitValue(), output.strip());
  }

  private static List<String> command(PodLink pod, String... args) {
    List<String> command = new ArrayList<>(network.execPrefix(pod));
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of("-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path")));
    command.add(NetProbe.class.getName());
    command.addAll(List.of(args));
    return command;
  }

  private static long sentMillis(Probe probe) {
    Matcher matcher = Pattern.compile("sent \\d+ in (\\d+) ms").matcher(probe.output());
    assertThat(matcher.find()).as(probe.output()).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  private record Probe(int exitCode, String output) {}
}
