package dev.gpucomm.e2e.cluster;

import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.e2e.E2eSettings;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real cluster from a kubeconfig: a namespace of its own for the run, the operator installed
 * there with the Helm chart and the images given, and everything removed at the end. Pods run the
 * runtime image; a rank is killed from inside its container.
 */
public final class RealCluster implements Cluster {
  private static final Logger LOG = LoggerFactory.getLogger(RealCluster.class);
  static final String OPERATOR_POD_LABEL = "app.kubernetes.io/name";
  static final String OPERATOR_NAME = "gpucomm-operator";

  /**
   * A scheduler nothing answers to: pods that name it stay Pending without a verdict, the way a
   * rank that never gets to start looks to the job.
   */
  static final String ABSENT_SCHEDULER = "gpucomm-e2e-no-such-scheduler";

  private final E2eSettings settings;
  private final KubernetesClient client;
  private final Helm helm;
  private final Path kubeconfig;
  private final String namespace;
  private final String release;
  private final Set<String> jobsThatNeverStart = ConcurrentHashMap.newKeySet();

  private RealCluster(E2eSettings settings, Path kubeconfig) {
    this.settings = settings;
    try {
      this.client =
          new KubernetesClientBuilder()
              .withConfig(
                  Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString()))
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
    }
    this.helm = new Helm(settings.helm(), kubeconfig);
    this.kubeconfig = kubeconfig;
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    this.namespace = "gpucomm-e2e-" + suffix;
    this.release = "gpucomm-e2e-" + suffix;
  }

  /** Creates the run's namespace and installs the chart into it; the images must be given. */
  public static RealCluster start(E2eSettings settings) {
    Path kubeconfig =
        settings
            .kubeconfig()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "e2e.real=true needs -De2e.kubeconfig or KUBECONFIG"));
    String operatorImage =
        settings
            .operatorImage()
            .orElseThrow(() -> new IllegalStateException("set -De2e.operatorImage"));
    String runtimeImage =
        settings
            .runtimeImage()
            .orElseThrow(() -> new IllegalStateException("set -De2e.runtimeImage"));
    RealCluster cluster = new RealCluster(settings, kubeconfig);
    try {
      cluster.install(operatorImage, runtimeImage);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void install(String operatorImage, String runtimeImage) {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    Map<String, String> values = new LinkedHashMap<>();
    values.putAll(HelmValues.images(operatorImage, runtimeImage));
    values.putAll(HelmValues.watchNamespace(namespace));
    LOG.info("installing the chart as {} in {}", release, namespace);
    helm.install(
        release, settings.repoRoot().resolve("helm").resolve(OPERATOR_NAME), namespace, values);
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public String namespace() {
    return namespace;
  }

  @Override
  public String device() {
    return settings.device();
  }

  @Override
  public boolean validatesAtAdmission() {
    return true;
  }

  @Override
  public Duration podStartup() {
    return Duration.ofMinutes(5); // a first pull of the CUDA runtime image takes minutes
  }

  @Override
  public CommJob apply(String yaml) {
    CommJob job = client.getKubernetesSerialization().unmarshal(yaml, CommJob.class);
    if (jobsThatNeverStart.contains(job.getMetadata().getName())) {
      // A real cluster cannot hold back one pod of a job; holding all of them hangs the job alike.
      PodTemplateSpec template =
          job.getSpec().getTemplate() == null ? new PodTemplateSpec() : job.getSpec().getTemplate();
      if (template.getSpec() == null) {
        template.setSpec(new io.fabric8.kubernetes.api.model.PodSpec());
      }
      template.getSpec().setSchedulerName(ABSENT_SCHEDULER);
      job.getSpec().setTemplate(template);
    }
    job.getMetadata().setNamespace(namespace);
    return client.resource(job).inNamespace(namespace).create();
  }

  @Override
  public void killRank(String job, int rank, int ranksPerPod) {
    String pod = job + "-" + (rank / ranksPerPod);
    // No kill or ps binary is assumed: the shell's builtins and /proc find the rank by its RANK.
    String script =
        "found=0; for p in /proc/[0-9]*; do"
            + " if tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qx 'RANK="
            + rank
            + "'; then kill -9 ${p#/proc/} && found=1; fi; done; [ $found = 1 ]";
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (ExecWatch exec =
        client
            .pods()
            .inNamespace(namespace)
            .withName(pod)
            .writingOutput(output)
            .writingError(output)
            .exec("sh", "-c", script)) {
      Integer exitCode = exec.exitCode().get(60, TimeUnit.SECONDS);
      if (exitCode == null || exitCode != 0) {
        throw new IllegalStateException(
            "no process of rank "
                + rank
                + " in pod "
                + pod
                + ": "
                + output.toString(StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot exec into " + pod, e);
    }
  }

  @Override
  public void neverStartPod(String job, int podIndex) {
    jobsThatNeverStart.add(job);
  }

  @Override
  public void holdFirstPod(String job, int podIndex) {
    // a scheduler name or a gate would hold the restarted pod alike: its template is the same
    Assumptions.abort("a real cluster cannot hold back only the first pod of a name");
  }

  @Override
  public void restartOperator() {
    List<Pod> before = operatorPods();
    before.forEach(p -> client.resource(p).delete());
    Set<String> old = ConcurrentHashMap.newKeySet();
    before.forEach(p -> old.add(p.getMetadata().getUid()));
    await("a new operator pod is ready")
        .atMost(podStartup())
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                operatorPods().stream()
                    .anyMatch(
                        p ->
                            !old.contains(p.getMetadata().getUid())
                                && p.getStatus() != null
                                && p.getStatus().getConditions() != null
                                && p.getStatus().getConditions().stream()
                                    .anyMatch(
                                        c ->
                                            c.getType().equals("Ready")
                                                && c.getStatus().equals("True"))));
  }

  private List<Pod> operatorPods() {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel(OPERATOR_POD_LABEL, OPERATOR_NAME)
        .list()
        .getItems();
  }

  @Override
  public void awaitNothingLeftOf(String job, Duration timeout) {
    await("nothing left of " + job)
        .atMost(timeout)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                client
                        .pods()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty()
                    && client
                        .configMaps()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty()
                    && client
                        .services()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty()
                    && client
                        .serviceAccounts()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty()
                    && client
                        .rbac()
                        .roles()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty()
                    && client
                        .rbac()
                        .roleBindings()
                        .inNamespace(namespace)
                        .withLabel(CommJob.JOB_LABEL, job)
                        .list()
                        .getItems()
                        .isEmpty());
  }

  @Override
  public boolean hasLiveProcesses(String job) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel(CommJob.JOB_LABEL, job)
        .list()
        .getItems()
        .stream()
        .anyMatch(
            p ->
                p.getStatus() == null
                    || "Running".equals(p.getStatus().getPhase())
                    || "Pending".equals(p.getStatus().getPhase()));
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void saveArtifacts(String scenario, Path directory) {
    try {
      Files.createDirectories(directory);
      ClusterDump.write(client, namespace, directory);
      for (Pod pod : client.pods().inNamespace(namespace).list().getItems()) {
        String name = pod.getMetadata().getName();
        Files.writeString(directory.resolve(name + ".log"), podLog(name, false));
        String previous = podLog(name, true);
        if (!previous.isEmpty()) {
          Files.writeString(directory.resolve(name + ".previous.log"), previous);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the artifacts of " + scenario, e);
    }
  }

  private String podLog(String pod, boolean previous) {
    try {
      var resource = client.pods().inNamespace(namespace).withName(pod);
      String log = previous ? resource.terminated().getLog() : resource.getLog();
      return log == null ? "" : log;
    } catch (KubernetesClientException e) {
      return previous ? "" : "# no log: " + e.getMessage() + "\n";
    }
  }

  @Override
  public void close() {
    try {
      helm.uninstall(release, namespace);
    } catch (RuntimeException e) {
      LOG.warn("helm uninstall {} failed", release, e);
    }
    try {
      client.namespaces().withName(namespace).delete();
    } finally {
      client.close();
    }
  }
}
