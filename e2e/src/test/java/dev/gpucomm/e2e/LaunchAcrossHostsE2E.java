package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.e2e.sim.PodNetwork;
import dev.gpucomm.e2e.sim.PodNetwork.PodLink;
import dev.gpucomm.e2e.sim.RequiresNetworkNamespaces;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several hosts without Kubernetes, as app/README.md describes them: {@code gpucomm launch} on each
 * with the GPUCOMM_* variables set by hand, host 0 hosting the store. Each host here is a network
 * namespace of its own, so the hosts reach each other only across the bridge.
 */
@RequiresNetworkNamespaces
class LaunchAcrossHostsE2E {
  private static final String CLI_MAIN_CLASS = "dev.gpucomm.runtime.cli.Gpucomm";
  private static final int STORE_PORT = 29500;
  private static final long LAUNCH_TIMEOUT_SECONDS = 50;

  @TempDir Path work;
  private PodNetwork network;
  private final List<Process> launches = new ArrayList<>();
  private final List<PodLink> hosts = new ArrayList<>();

  @BeforeEach
  void createNetwork() {
    network = PodNetwork.acquire();
  }

  @AfterEach
  void removeNetwork() {
    launches.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
    launches.forEach(Process::destroyForcibly);
    hosts.forEach(network::detach);
    network.close();
  }

  @Test
  void gpucommLaunchOnTwoHostsRunsOneJobAcrossThem() throws Exception {
    E2eSettings settings = E2eSettings.fromSystem();
    Path jobFile = Files.writeString(work.resolve("job.yaml"), twoHostJob());
    Path reportDir = Files.createDirectories(work.resolve("report"));
    PodLink host0 = host("gc-hosts-0");
    PodLink host1 = host("gc-hosts-1");

    Process launch1 = launch(settings, host1, 1, host0.address(), jobFile, null);
    Process launch0 = launch(settings, host0, 0, host0.address(), jobFile, reportDir);

    assertThat(launch0.waitFor(LAUNCH_TIMEOUT_SECONDS, TimeUnit.SECONDS))
        .as("host 0 done")
        .isTrue();
    assertThat(launch1.waitFor(LAUNCH_TIMEOUT_SECONDS, TimeUnit.SECONDS))
        .as("host 1 done")
        .isTrue();
    assertThat(launch0.exitValue()).as(log(host0)).isZero();
    assertThat(launch1.exitValue()).as(log(host1)).isZero();
    BenchmarkReport report = Reports.benchmark(Files.readString(reportDir.resolve("report.json")));
    assertThat(report.worldSize()).as("ranks of both hosts").isEqualTo(4);
    assertThat(report.sizes()).hasSize(JobManifests.SWEEP_BYTES.size());
  }

  private PodLink host(String namespace) {
    PodLink host = network.attach(namespace, network.allocateAddress(), Map.of());
    hosts.add(host);
    return host;
  }

  private Process launch(
      E2eSettings settings,
      PodLink host,
      int podIndex,
      String storeAddress,
      Path jobFile,
      Path reportDir)
      throws IOException {
    Path home = Files.createDirectories(work.resolve(host.namespace()));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", home.toString());
    env.put("GPUCOMM_JOB", "hosts");
    env.put("GPUCOMM_POD_INDEX", Integer.toString(podIndex));
    env.put("GPUCOMM_RANKS_PER_POD", "2");
    env.put("GPUCOMM_WORLD_SIZE", "4");
    env.put("GPUCOMM_RENDEZVOUS", storeAddress + ":" + STORE_PORT);
    env.put("GPUCOMM_POD_ADDRESS", host.address());
    env.put("GPUCOMM_JOB_FILE", jobFile.toString());
    env.put("GPUCOMM_TERMINATION_LOG", home.resolve("termination-log").toString());
    // the ranks on C1 alone, as the simulated pods' (SimulatedPod): short-lived, on two cores
    env.put("GPUCOMM_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
    if (reportDir != null) {
      env.put("GPUCOMM_REPORT_DIR", reportDir.toString());
    }
    List<String> command = new ArrayList<>(network.execPrefix(host));
    command.addAll(
        List.of(
            settings.java().toString(),
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            settings.runtimeClasspath(),
            CLI_MAIN_CLASS,
            "launch"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(home.resolve("launch.log").toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    launches.add(process);
    return process;
  }

  private String log(PodLink host) {
    try {
      return Files.readString(work.resolve(host.namespace()).resolve("launch.log"));
    } catch (IOException e) {
      return "no log: " + e.getMessage();
    }
  }

  /** The small sweep on two hosts of two ranks, across the hosts' links. */
  private static String twoHostJob() {
    return JobManifests.multiPodSweep("hosts", "cpu", 2, 2)
        .replace("timeoutSeconds: 300", "timeoutSeconds: " + (LAUNCH_TIMEOUT_SECONDS - 5));
  }
}
