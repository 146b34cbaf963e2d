package dev.gpucomm.e2e;

import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.Phase;
import dev.gpucomm.e2e.cluster.Cluster;
import dev.gpucomm.runtime.cli.Gpucomm;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The CommJobs the scenarios apply (as the YAML a user writes) and what the scenarios wait for and
 * look at, phrased the way a user checks with kubectl.
 */
final class Jobs {
  /** Token counts of the small sweep, and the bytes per rank they make (bf16, hidden 256). */
  static final List<Integer> SWEEP_TOKENS = List.of(1, 16, 128);

  static final int SWEEP_HIDDEN = 256;
  static final List<Long> SWEEP_BYTES =
      SWEEP_TOKENS.stream().map(t -> (long) t * SWEEP_HIDDEN * 2).toList();

  private final Cluster cluster;
  private final KubernetesClient client;

  Jobs(Cluster cluster) {
    this.cluster = cluster;
    this.client = cluster.client();
  }

  // ---- the jobs ----

  /**
   * A small all-reduce sweep on one pod of two ranks (the CPU backend runs a job's ranks on one
   * node), every algorithm of the device measured.
   */
  static String allReduceSweep(String name, String device, String heuristic) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: %d
              tokens: %s
              algorithms: %s
              warmupIterations: 2
              iterations: 5
              cudaGraph: %s
          heuristic:
            name: %s
          timeoutSeconds: 300
        """
        .formatted(
            name,
            device,
            SWEEP_HIDDEN,
            SWEEP_TOKENS,
            algorithms(device),
            !device.equals("cpu"),
            heuristic);
  }

  /** Every all-reduce algorithm of the device: ring is the CPU backend's stand-in for NCCL. */
  static List<String> algorithms(String device) {
    return device.equals("cpu")
        ? List.of("auto", "oneshot", "twoshot", "ring")
        : List.of("auto", "nccl", "oneshot", "twoshot");
  }

  /** An all-reduce that runs far longer than any scenario waits: it is there to be interrupted. */
  static String longAllReduce(String name, String device, int timeoutSeconds) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: 4096
              tokens: [256]
              algorithms: [oneshot]
              warmupIterations: 0
              iterations: 1000000
              cudaGraph: false
          timeoutSeconds: %d
        """
        .formatted(name, device, timeoutSeconds);
  }

  /**
   * An all-reduce of a few seconds. The operator restarted while it runs may come back before or
   * after it ends: either way the new operator must adopt the pods, not make new ones.
   */
  static String mediumAllReduce(String name, String device) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: benchmark
            benchmark:
              collective: allreduce
              dtype: bf16
              hiddenSize: 1024
              tokens: [16, 64]
              algorithms: [auto, oneshot, twoshot]
              warmupIterations: 2
              iterations: 30
              cudaGraph: false
          timeoutSeconds: 300
        """
        .formatted(name, device);
  }

  /**
   * The small sweep on two pods of one rank each, which must finish within the timeout. Ranks of
   * different pods share no IPC buffers, so it measures only the device's NCCL (ring on the CPU).
   */
  static String twoPodsWithTimeout(String name, String device, int timeoutSeconds) {
    return allReduceSweep(name, device, "trtllm")
        .replace("ranksPerPod: 2", "ranksPerPod: 1")
        .replace(algorithms(device).toString(), device.equals("cpu") ? "[ring]" : "[nccl]")
        .replace("timeoutSeconds: 300", "timeoutSeconds: " + timeoutSeconds);
  }

  static String allReduceWithLayout(String name, String device, int worldSize, int ranksPerPod) {
    return allReduceSweep(name, device, "trtllm")
        .replace("worldSize: 2", "worldSize: " + worldSize)
        .replace("ranksPerPod: 2", "ranksPerPod: " + ranksPerPod);
  }

  /** The job compared with the report in ConfigMap {@code baseline}. */
  static String withBaseline(String yaml, String baseline, double maxSlowdownPercent) {
    return yaml
        + """
          baseline:
            configMapRef: %s
            maxSlowdownPercent: %s
        """
            .formatted(baseline, maxSlowdownPercent);
  }

  /** A row-parallel linear layer, matmul chunks overlapped with the all-reduce on streams. */
  static String rowParallelLinear(String name, String device) {
    return """
        apiVersion: gpucomm.dev/v1alpha1
        kind: CommJob
        metadata:
          name: %s
        spec:
          worldSize: 2
          ranksPerPod: 2
          device: %s
          workload:
            kind: program
            program:
              name: rowParallelLinear
              shape: {m: 64, n: 64, k: 128}
              chunks: 2
              passes: [assignStreams]
              streams: 2
              dtype: fp32
              warmupIterations: 1
              iterations: 3
          timeoutSeconds: 300
        """
        .formatted(name, device);
  }

  // ---- what the scenarios wait for ----

  Duration jobDuration() {
    return cluster.podStartup().plus(Duration.ofMinutes(3));
  }

  CommJob get(String name) {
    return client.resources(CommJob.class).inNamespace(cluster.namespace()).withName(name).get();
  }

  List<Pod> awaitPods(String job, int count) {
    await(count + " pods of " + job)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> pods(job).size() == count);
    return pods(job);
  }

  CommJob awaitPhase(String name, Phase phase) {
    await(name + " " + phase)
        .atMost(jobDuration())
        .pollInterval(Duration.ofMillis(200))
        .until(() -> phaseOf(get(name)) == phase);
    return get(name);
  }

  CommJob awaitFinished(String name) {
    return awaitFinished(name, jobDuration());
  }

  CommJob awaitFinished(String name, Duration timeout) {
    await(name + " Succeeded or Failed")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> phaseOf(get(name)) == Phase.SUCCEEDED || phaseOf(get(name)) == Phase.FAILED);
    return get(name);
  }

  void awaitLiveProcesses(String job) {
    await("processes of " + job)
        .atMost(cluster.podStartup())
        .pollInterval(Duration.ofMillis(200))
        .until(() -> cluster.hasLiveProcesses(job));
  }

  void awaitNoLiveProcesses(String job) {
    await("no process of " + job)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !cluster.hasLiveProcesses(job));
  }

  /** Kills the rank as soon as its process exists; returns when it was killed. */
  Instant killRankOnceItRuns(String job, int rank, int ranksPerPod) {
    await("rank " + rank + " of " + job + " killed")
        .atMost(cluster.podStartup())
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              cluster.killRank(job, rank, ranksPerPod);
              return true;
            });
    return Instant.now();
  }

  /** Counts the ADDED events of each pod of the job, for as long as the watch is open. */
  Watch countPodCreations(String job, Map<String, Integer> created) {
    return client
        .pods()
        .inNamespace(cluster.namespace())
        .withLabel(CommJob.JOB_LABEL, job)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, Pod pod) {
                if (action == Action.ADDED) {
                  created.merge(pod.getMetadata().getName(), 1, Integer::sum);
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }

  // ---- what the scenarios look at ----

  static Phase phaseOf(CommJob job) {
    return job == null || job.getStatus() == null ? null : job.getStatus().getPhase();
  }

  Optional<Condition> condition(CommJob job, String type) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst();
  }

  List<Pod> pods(String job) {
    return client
        .pods()
        .inNamespace(cluster.namespace())
        .withLabel(CommJob.JOB_LABEL, job)
        .list()
        .getItems();
  }

  Set<String> podUids(String job) {
    return pods(job).stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
  }

  ConfigMap results(String job) {
    return client.configMaps().inNamespace(cluster.namespace()).withName(job + "-results").get();
  }

  /** Every object of the kinds the operator creates that carries the job's label. */
  List<HasMetadata> objectsOf(String job) {
    String namespace = cluster.namespace();
    List<HasMetadata> objects = new ArrayList<>();
    objects.addAll(
        client.pods().inNamespace(namespace).withLabel(CommJob.JOB_LABEL, job).list().getItems());
    objects.addAll(
        client
            .configMaps()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .services()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .serviceAccounts()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .rbac()
            .roles()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .rbac()
            .roleBindings()
            .inNamespace(namespace)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    return objects;
  }

  /** What {@code gpucomm report <job> -n <ns> --format <format>} prints, run as CI runs it. */
  String fetchReport(String job, String format) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] command = {
      "report",
      job,
      "-n",
      cluster.namespace(),
      "--format",
      format,
      "--kubeconfig",
      cluster.kubeconfig().toString()
    };
    int exit =
        Gpucomm.execute(
            command,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);
    if (exit != 0) {
      throw new AssertionError(
          "gpucomm report exited " + exit + ": " + err.toString(StandardCharsets.UTF_8));
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
