package dev.gpucomm.e2e.sim;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pod on the simulated node: its mounted files materialized under a directory, its container
 * run as a local process group, its status reported back to the API server as a kubelet would.
 */
public final class SimulatedPod {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatedPod.class);
  private static final int MAX_TERMINATION_MESSAGE_BYTES = 4096; // the kubelet's limit
  private static final String DEFAULT_TERMINATION_PATH = "/dev/termination-log";
  private static Optional<String> rankLoggingOption; // made once, by rankLogging()

  /**
   * The ranks' JIT: C1 alone. A scenario's ranks live seconds and move kilobytes, and on a two-core
   * machine C2's compiler threads competed with them: the multi-pod scenarios took 130 s with C2
   * and 93 s without (user CPU 191 s and 133 s). The ranks then reduce without the Vector API, as
   * the runtime does on any JVM without C2; the runtime's own tests cover that path and the Vector
   * API's. A pod whose env (spec.template) sets GPUCOMM_JAVA_OPTS replaces this.
   */
  private static final String RANK_COMPILER = "-XX:TieredStopAtLevel=1";

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String job;
  private final Path directory;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile Process process;
  private volatile ProcessGroup group;
  private volatile Instant startedAt;
  private volatile PodSlot slot;
  private volatile String address = NodeSimulator.NODE_ADDRESS;
  private volatile PodNetworking networking;

  SimulatedPod(KubernetesClient client, Pod pod, String job, Path directory) {
    this.client = client;
    this.namespace = pod.getMetadata().getNamespace();
    this.name = pod.getMetadata().getName();
    this.job = job;
    this.directory = directory;
  }

  public String name() {
    return name;
  }

  public String job() {
    return job;
  }

  /** The container's stdout and stderr. */
  public Path log() {
    return directory.resolve("container.log");
  }

  public Optional<ProcessGroup> processGroup() {
    return Optional.ofNullable(group);
  }

  /** The address other pods reach this pod at. */
  public String address() {
    return address;
  }

  /**
   * Marks the pod Running and starts its container, as a kubelet does after scheduling: in the
   * pod's own network when the node gives each pod one.
   */
  void start(Pod pod, ContainerCommand command, NodeAddressing addressing) {
    Container container = pod.getSpec().getContainers().getFirst();
    try {
      Files.createDirectories(directory.resolve("tmp"));
      networking = addressing.networking();
      slot = PodSlot.of(pod, job, literalEnvironment(container));
      address = networking.address(slot);
      Map<String, Path> mounts = materializeVolumes(pod, container);
      Map<String, String> environment = new LinkedHashMap<>();
      environment.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
      environment.put("HOME", directory.toString());
      environment.put("TMPDIR", directory.resolve("tmp").toString());
      environment.put("HOSTNAME", hostname(pod));
      environment.put("LANG", "C.UTF-8"); // as container images set it: output is UTF-8
      List<String> rankOptions = new ArrayList<>(List.of(RANK_COMPILER));
      rankLogging().ifPresent(rankOptions::add);
      environment.put("GPUCOMM_JAVA_OPTS", String.join(" ", rankOptions));
      environment.putAll(
          new PodEnvironment(client, pod, container, address, networking.nodeName(slot)).resolve());
      Path terminationLog =
          local(
              mounts,
              Optional.ofNullable(container.getTerminationMessagePath())
                  .orElse(DEFAULT_TERMINATION_PATH));
      Files.createDirectories(terminationLog.getParent());
      environment.putAll(
          addressing.overrides(slot, environment, path -> local(mounts, path), terminationLog));

      List<String> line = new ArrayList<>();
      if (ProcessGroup.supported()) {
        line.addAll(List.of("/usr/bin/setsid", "--wait"));
      }
      List<String> containerLine = command.commandLine(container);
      // "ip netns exec" execs the command in place, so the process stays the group's leader.
      line.addAll(networking.connect(slot));
      line.addAll(containerLine);
      ProcessBuilder builder =
          new ProcessBuilder(line)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log().toFile());
      builder.environment().clear();
      builder.environment().putAll(environment);
      Files.writeString(
          directory.resolve("command.txt"),
          String.join(" ", line) + "\n" + environment + "\n",
          StandardCharsets.UTF_8);
      startedAt = Instant.now();
      patchStatus(status -> running(pod, container));
      process = builder.start();
      group = ProcessGroup.supported() ? new ProcessGroup(process.pid()) : null;
      LOG.info("pod {}/{} started as process {}", namespace, name, process.pid());
      process.onExit().thenRun(() -> onExit(container, terminationLog));
    } catch (IOException | RuntimeException e) {
      LOG.warn("pod {}/{} could not start", namespace, name, e);
      disconnect();
      String message = e.getMessage() == null ? e.toString() : e.getMessage();
      patchStatus(status -> terminated(container, 128, "StartError", message));
    }
  }

  /**
   * Stops the container as a kubelet stops a deleted pod: SIGTERM to every process, then SIGKILL
   * after the grace period.
   */
  void stop(Duration gracePeriod) {
    stopping.set(true);
    ProcessGroup current = group;
    if (current != null) {
      current.terminateAll();
      long deadline = System.nanoTime() + gracePeriod.toNanos();
      while (!current.members().isEmpty() && System.nanoTime() < deadline) {
        try {
          TimeUnit.MILLISECONDS.sleep(50); // polling /proc: a process group has no exit future
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      current.killAll();
    } else if (process != null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    disconnect();
  }

  /** Takes the pod's network away, once: its processes are gone or going. */
  private void disconnect() {
    PodNetworking current = networking;
    PodSlot currentSlot = slot;
    if (current != null && currentSlot != null) {
      networking = null;
      current.disconnect(currentSlot);
    }
  }

  /** Whether any process of this pod still runs. */
  public boolean hasLiveProcesses() {
    ProcessGroup current = group;
    if (current != null) {
      return !current.members().isEmpty();
    }
    return process != null && process.isAlive();
  }

  /** The pod's live processes as "pod pid command", for messages. */
  List<String> liveProcesses() {
    List<ProcessHandle> live = new ArrayList<>();
    ProcessGroup current = group;
    if (current != null) {
      live.addAll(current.members());
    } else if (process != null && process.isAlive()) {
      live.add(process.toHandle());
    }
    return live.stream()
        .map(p -> name + " " + p.pid() + " " + p.info().commandLine().orElse("?"))
        .toList();
  }

  private void onExit(Container container, Path terminationLog) {
    int exitCode = process.exitValue();
    if (stopping.get()) {
      LOG.info("pod {}/{} stopped (exit {})", namespace, name, exitCode);
      return; // a deleted pod reports nothing more
    }
    // The container ends when its main process does; anything it left behind goes with it.
    ProcessGroup current = group;
    if (current != null) {
      current.killAll();
    }
    disconnect();
    String message = terminationMessage(container, terminationLog, exitCode);
    String reason = exitCode == 0 ? "Completed" : "Error";
    LOG.info("pod {}/{} exited {} ({}): {}", namespace, name, exitCode, reason, message);
    patchStatus(status -> terminated(container, exitCode, reason, message));
  }

  private String terminationMessage(Container container, Path terminationLog, int exitCode) {
    String message = readTail(terminationLog, MAX_TERMINATION_MESSAGE_BYTES);
    if (message.isBlank()
        && exitCode != 0
        && "FallbackToLogsOnError".equals(container.getTerminationMessagePolicy())) {
      message = readTail(log(), 2048);
    }
    return message.strip();
  }

  private PodStatus running(Pod pod, Container container) {
    String now = startedAt.toString();
    return new PodStatusBuilder()
        .withPhase("Running")
        .withPodIP(address)
        .withHostIP(NodeSimulator.NODE_ADDRESS)
        .withStartTime(now)
        .withConditions(conditions("True", now))
        .withContainerStatuses(
            new ContainerStatusBuilder()
                .withName(container.getName())
                .withImage(container.getImage())
                .withReady(true)
                .withStarted(true)
                .withRestartCount(0)
                .withState(new ContainerStateBuilder().withNewRunning(now).build())
                .build())
        .build();
  }

  private PodStatus terminated(Container container, int exitCode, String reason, String message) {
    String now = Instant.now().toString();
    String started = startedAt == null ? now : startedAt.toString();
    return new PodStatusBuilder()
        .withPhase(exitCode == 0 ? "Succeeded" : "Failed")
        .withPodIP(address)
        .withHostIP(NodeSimulator.NODE_ADDRESS)
        .withStartTime(started)
        .withConditions(conditions("False", now))
        .withContainerStatuses(
            new ContainerStatusBuilder()
                .withName(container.getName())
                .withImage(container.getImage())
                .withReady(false)
                .withStarted(false)
                .withRestartCount(0)
                .withState(
                    new ContainerStateBuilder()
                        .withNewTerminated()
                        .withExitCode(exitCode)
                        .withReason(reason)
                        .withMessage(message.isEmpty() ? null : message)
                        .withStartedAt(started)
                        .withFinishedAt(now)
                        .endTerminated()
                        .build())
                .build())
        .build();
  }

  private static List<PodCondition> conditions(String ready, String now) {
    List<PodCondition> conditions = new ArrayList<>();
    for (String type : List.of("PodScheduled", "Initialized")) {
      conditions.add(
          new PodConditionBuilder()
              .withType(type)
              .withStatus("True")
              .withLastTransitionTime(now)
              .build());
    }
    for (String type : List.of("ContainersReady", "Ready")) {
      conditions.add(
          new PodConditionBuilder()
              .withType(type)
              .withStatus(ready)
              .withLastTransitionTime(now)
              .build());
    }
    return conditions;
  }

  private void patchStatus(UnaryOperator<PodStatus> change) {
    try {
      client
          .pods()
          .inNamespace(namespace)
          .withName(name)
          .editStatus(
              pod -> {
                pod.setStatus(change.apply(pod.getStatus()));
                return pod;
              });
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        LOG.warn("pod {}/{}: status not written", namespace, name, e);
      } // a deleted pod has no status to write
    }
  }

  /** Writes each ConfigMap, Secret and emptyDir volume the container mounts under this pod. */
  private Map<String, Path> materializeVolumes(Pod pod, Container container) throws IOException {
    Map<String, Volume> volumes = new LinkedHashMap<>();
    if (pod.getSpec().getVolumes() != null) {
      pod.getSpec().getVolumes().forEach(v -> volumes.put(v.getName(), v));
    }
    Map<String, Path> mounts = new LinkedHashMap<>();
    for (VolumeMount mount : Optional.ofNullable(container.getVolumeMounts()).orElse(List.of())) {
      Path target = directory.resolve("root").resolve(mount.getMountPath().replaceFirst("^/+", ""));
      Files.createDirectories(target);
      mounts.put(mount.getMountPath(), target);
      Volume volume = volumes.get(mount.getName());
      if (volume == null) {
        continue;
      }
      if (volume.getConfigMap() != null) {
        ConfigMap configMap =
            client
                .configMaps()
                .inNamespace(namespace)
                .withName(volume.getConfigMap().getName())
                .get();
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (configMap != null && configMap.getData() != null) {
          configMap.getData().forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
        }
        writeKeys(target, files, volume.getConfigMap().getItems());
      } else if (volume.getSecret() != null) {
        Secret secret =
            client
                .secrets()
                .inNamespace(namespace)
                .withName(volume.getSecret().getSecretName())
                .get();
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (secret != null && secret.getData() != null) {
          secret.getData().forEach((k, v) -> files.put(k, Base64.getDecoder().decode(v)));
        }
        writeKeys(target, files, volume.getSecret().getItems());
      }
      // emptyDir (including the memory-backed /dev/shm) is the empty directory just made.
    }
    return mounts;
  }

  private static void writeKeys(Path target, Map<String, byte[]> files, List<KeyToPath> items)
      throws IOException {
    if (items == null || items.isEmpty()) {
      for (var file : files.entrySet()) {
        Files.write(target.resolve(file.getKey()), file.getValue());
      }
      return;
    }
    for (KeyToPath item : items) {
      byte[] content = files.get(item.getKey());
      if (content != null) {
        Path path = target.resolve(item.getPath());
        Files.createDirectories(path.getParent());
        Files.write(path, content);
      }
    }
  }

  /** The local file behind a path in the container: inside a mount if one covers it. */
  Path local(Map<String, Path> mounts, String containerPath) {
    String best = null;
    for (String mountPath : mounts.keySet()) {
      String prefix = mountPath.endsWith("/") ? mountPath : mountPath + "/";
      if ((containerPath.equals(mountPath) || containerPath.startsWith(prefix))
          && (best == null || mountPath.length() > best.length())) {
        best = mountPath;
      }
    }
    if (best == null) {
      return directory.resolve("root").resolve(containerPath.replaceFirst("^/+", ""));
    }
    String rest = containerPath.substring(best.length()).replaceFirst("^/+", "");
    return rest.isEmpty() ? mounts.get(best) : mounts.get(best).resolve(rest);
  }

  /** The container's env entries with a literal value, such as the operator's pod index. */
  private static Map<String, String> literalEnvironment(Container container) {
    Map<String, String> literal = new LinkedHashMap<>();
    for (var variable : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
      if (variable.getValue() != null) {
        literal.put(variable.getName(), variable.getValue());
      }
    }
    return literal;
  }

  private static String hostname(Pod pod) {
    String hostname = pod.getSpec().getHostname();
    return hostname == null || hostname.isBlank() ? pod.getMetadata().getName() : hostname;
  }

  private static String readTail(Path file, int maxBytes) {
    try {
      if (!Files.exists(file)) {
        return "";
      }
      byte[] bytes = Files.readAllBytes(file);
      int from = Math.max(0, bytes.length - maxBytes);
      return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * The ranks' JDK logging: Fabric8's retries of API requests, with the time, in the container log
   * (a rank that publishes its results seconds late shows there whether the API server was why).
   * One file for every pod, outside the artifacts folder: GPUCOMM_JAVA_OPTS is split at whitespace,
   * and a folder with a space in its path would break the ranks' command line.
   */
  private static synchronized Optional<String> rankLogging() throws IOException {
    if (rankLoggingOption == null) {
      Path file = Files.createTempFile("gpucomm-e2e-rank-logging-", ".properties");
      file.toFile().deleteOnExit();
      Files.writeString(
          file,
          """
          handlers=java.util.logging.ConsoleHandler
          java.util.logging.ConsoleHandler.level=FINE
          java.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %3$s: %5$s%n
          io.fabric8.kubernetes.client.http.StandardHttpClient.level=FINE
          """);
      rankLoggingOption =
          file.toString().chars().anyMatch(Character::isWhitespace)
              ? Optional.empty()
              : Optional.of("-Djava.util.logging.config.file=" + file);
    }
    return rankLoggingOption;
  }
}
