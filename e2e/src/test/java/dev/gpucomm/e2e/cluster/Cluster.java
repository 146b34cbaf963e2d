package dev.gpucomm.e2e.cluster;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A Kubernetes cluster with the gpucomm operator installed, as the scenarios see it: the same
 * scenarios run against a mock API server with a simulated node, or against a real cluster.
 */
public interface Cluster extends AutoCloseable {
  /** A client for the cluster's API server, as a user's kubectl would have. */
  KubernetesClient client();

  /** The namespace the scenarios create their CommJobs in. */
  String namespace();

  /** The device the scenarios' jobs run on: cpu, or cuda on a GPU cluster. */
  String device();

  /** Whether the API server runs the CRD's CEL rules, so that invalid specs are refused. */
  boolean validatesAtAdmission();

  /** How long a pod may take from creation to running its container (image pulls are slow). */
  Duration podStartup();

  /** Creates a CommJob from its YAML, as {@code kubectl apply -f} does. */
  default CommJob apply(String yaml) {
    CommJob job = client().getKubernetesSerialization().unmarshal(yaml, CommJob.class);
    job.getMetadata().setNamespace(namespace());
    return client().resource(job).inNamespace(namespace()).create();
  }

  /** Kills the process of one rank of a running job, as an OOM kill or a crash would. */
  void killRank(String job, int rank, int ranksPerPod);

  /**
   * Makes pod {@code podIndex} of the job (created later) never start its container, so that its
   * ranks never join. Must be called before the job is applied.
   */
  void neverStartPod(String job, int podIndex);

  /**
   * Makes the first pod {@code podIndex} of the job (created later) never start its container,
   * while a pod created again under its name starts, as after a node fails one pod. Must be called
   * before the job is applied. A cluster that cannot hold one pod back skips the scenario.
   */
  void holdFirstPod(String job, int podIndex);

  /** Restarts the operator: its process (or pod) goes away and a new one starts. */
  void restartOperator();

  /**
   * Waits until the cluster has removed what the job left: objects owned by a deleted CommJob (the
   * garbage collector's work) and the processes of its pods.
   */
  void awaitNothingLeftOf(String job, Duration timeout);

  /**
   * The links of pods this cluster lets a scenario cut or slow: present where each pod has a link
   * of its own that the suite controls (the offline cluster with network namespaces).
   */
  default Optional<PodLinks> podLinks() {
    return Optional.empty();
  }

  /** Whether any process of the job's pods still runs (a rank, a launcher). */
  boolean hasLiveProcesses(String job);

  /** A kubeconfig file for this cluster, as a CI pipeline or a user's kubectl would have. */
  Path kubeconfig();

  /** Saves what helps to understand a failed scenario: pod logs, operator logs, objects. */
  void saveArtifacts(String scenario, Path directory);

  @Override
  void close();
}
