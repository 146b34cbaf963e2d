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

/** What the scenarios wait for and look at in a cluster, the way a user checks with kubectl. */
final class Jobs {
  private final Cluster cluster;
  private final KubernetesClient client;

  Jobs(Cluster cluster) {
    this.cluster = cluster;
    this.client = cluster.client();
  }

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

  /** The port of the job's rendezvous store, from its pods' GPUCOMM_RENDEZVOUS (host:port). */
  int rendezvousPort(String job) {
    String rendezvous =
        pods(job).getFirst().getSpec().getContainers().getFirst().getEnv().stream()
            .filter(variable -> variable.getName().equals("GPUCOMM_RENDEZVOUS"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the pods of " + job + " have no rendezvous"))
            .getValue();
    return Integer.parseInt(rendezvous.substring(rendezvous.lastIndexOf(':') + 1));
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
