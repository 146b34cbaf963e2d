package dev.gpucomm.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.e2e.E2eSettings;
import dev.gpucomm.e2e.sim.NodeSimulator;
import dev.gpucomm.e2e.sim.OperatorProcess;
import dev.gpucomm.e2e.sim.PodNetwork;
import dev.gpucomm.e2e.sim.SimulatedPod;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;

/**
 * A cluster on this machine: Fabric8's mock API server in CRUD mode (reached over real HTTP by
 * every process), the CommJob CRD, the packaged operator as its own process, a simulated node that
 * runs the pods' containers as local processes, and the owner-reference garbage collection that the
 * mock server lacks. The mock server runs no admission (CEL) rules. Where network namespaces can be
 * made (as root), each pod has its own on a bridge, and the API server listens on the bridge.
 */
public final class MockCluster implements Cluster {
  static final String NAMESPACE = "gpucomm-e2e";
  private static final String CLI_MAIN_CLASS = "dev.gpucomm.runtime.cli.Gpucomm";

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final OwnerGarbageCollector garbageCollector;
  private final NodeSimulator node;
  private final OperatorProcess operator;
  private final Path workDirectory;
  private final Path kubeconfig;
  private final Optional<PodNetwork> network;

  private MockCluster(
      E2eSettings settings,
      String cliMainClass,
      String runtimeClasspath,
      Optional<PodNetwork> network) {
    this.network = network;
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            false);
    // Pods in namespaces of their own reach this machine only through the bridge.
    InetAddress listenAddress =
        network.isPresent() ? bridgeAddress() : InetAddress.getLoopbackAddress();
    server.init(listenAddress, 0);
    allowEverything(server);
    String url = "http://" + listenAddress.getHostAddress() + ":" + server.getPort();
    client = server.createClient();
    workDirectory = settings.artifactsDir().resolve("offline");
    kubeconfig = writeKubeconfig(url, workDirectory);
    registerCrd(settings.repoRoot().resolve("api").resolve("commjobs.gpucomm.dev-v1.yml"));
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .create();
    garbageCollector = new OwnerGarbageCollector(client);
    garbageCollector.start();
    node =
        network
            .map(
                podNetwork ->
                    new NodeSimulator(
                        client,
                        url,
                        settings.java(),
                        runtimeClasspath,
                        cliMainClass,
                        workDirectory.resolve("node"),
                        podNetwork))
            .orElseGet(
                () ->
                    new NodeSimulator(
                        client,
                        url,
                        settings.java(),
                        runtimeClasspath,
                        cliMainClass,
                        workDirectory.resolve("node")));
    node.start();
    operator =
        new OperatorProcess(
            settings.java(),
            settings.operatorApp(),
            url,
            // Outside a pod the operator has no namespace of its own to keep its Lease in.
            Map.of("gpucomm.operator.leader-election.lease-namespace", NAMESPACE),
            workDirectory.resolve("operator"));
  }

  /** Starts the mock API server, the node and the operator. */
  public static MockCluster start(E2eSettings settings) {
    return start(settings, CLI_MAIN_CLASS, settings.runtimeClasspath());
  }

  /** As {@link #start(E2eSettings)}, with pods running another main class than the gpucomm CLI. */
  static MockCluster start(E2eSettings settings, String cliMainClass, String runtimeClasspath) {
    Optional<PodNetwork> network =
        PodNetwork.availability() instanceof PodNetwork.Availability.Available
            ? Optional.of(PodNetwork.acquire())
            : Optional.empty();
    MockCluster cluster;
    try {
      cluster = new MockCluster(settings, cliMainClass, runtimeClasspath, network);
    } catch (RuntimeException e) {
      network.ifPresent(PodNetwork::close);
      throw e;
    }
    try {
      cluster.operator.start(Duration.ofSeconds(90));
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /**
   * Answers access reviews as an API server does for a cluster admin (the mock server's CRUD mode
   * would store them instead): the operator checks it may take the leader Lease before starting.
   */
  private static void allowEverything(KubernetesMockServer server) {
    server
        .expect()
        .post()
        .withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
        .andReturn(
            201,
            new SelfSubjectRulesReviewBuilder()
                .withNewSpec()
                .withNamespace(NAMESPACE)
                .endSpec()
                .withNewStatus()
                .withIncomplete(false)
                .addNewResourceRule()
                .withApiGroups("*")
                .withResources("*")
                .withVerbs("*")
                .endResourceRule()
                .endStatus()
                .build())
        .always();
  }

  private static InetAddress bridgeAddress() {
    try {
      return InetAddress.getByName(PodNetwork.BRIDGE_ADDRESS);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // a literal address needs no lookup
    }
  }

  private void registerCrd(Path crdFile) {
    try (InputStream yaml = Files.newInputStream(crdFile)) {
      CustomResourceDefinition crd =
          client.getKubernetesSerialization().unmarshal(yaml, CustomResourceDefinition.class);
      client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CRD " + crdFile, e);
    }
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public String namespace() {
    return NAMESPACE;
  }

  @Override
  public String device() {
    return "cpu";
  }

  @Override
  public boolean validatesAtAdmission() {
    return false;
  }

  @Override
  public Duration podStartup() {
    return Duration.ofSeconds(30);
  }

  @Override
  public void killRank(String job, int rank, int ranksPerPod) {
    node.killRank(job, rank, ranksPerPod);
  }

  @Override
  public void neverStartPod(String job, int podIndex) {
    node.holdPod(NAMESPACE, job + "-" + podIndex);
  }

  @Override
  public void holdFirstPod(String job, int podIndex) {
    node.holdFirstPod(NAMESPACE, job + "-" + podIndex);
  }

  @Override
  public void restartOperator() {
    operator.kill();
    operator.start(Duration.ofSeconds(90));
  }

  @Override
  public void awaitNothingLeftOf(String job, Duration timeout) {
    await("nothing left of " + job)
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              garbageCollector.collectOrphans(NAMESPACE);
              assertThat(objectsOf(job))
                  .extracting(o -> o.getKind() + " " + o.getMetadata().getName())
                  .as("objects of " + job)
                  .isEmpty();
              assertThat(node.liveProcessesOf(job)).as("processes of " + job).isEmpty();
            });
  }

  /** Every object of the kinds the operator creates that carries the job's label. */
  List<HasMetadata> objectsOf(String job) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.addAll(
        client.pods().inNamespace(NAMESPACE).withLabel(CommJob.JOB_LABEL, job).list().getItems());
    objects.addAll(
        client
            .configMaps()
            .inNamespace(NAMESPACE)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .services()
            .inNamespace(NAMESPACE)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .serviceAccounts()
            .inNamespace(NAMESPACE)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .rbac()
            .roles()
            .inNamespace(NAMESPACE)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    objects.addAll(
        client
            .rbac()
            .roleBindings()
            .inNamespace(NAMESPACE)
            .withLabel(CommJob.JOB_LABEL, job)
            .list()
            .getItems());
    return objects;
  }

  @Override
  public Optional<PodLinks> podLinks() {
    if (!node.hasPodNetwork()) {
      return Optional.empty();
    }
    return Optional.of(
        new PodLinks() {
          @Override
          public void cut(String job, int podIndex) {
            node.cutLink(job, podIndex);
          }

          @Override
          public void limit(String job, int podIndex, PodNetwork.LinkLimit limit) {
            node.limitLink(job, podIndex, limit);
          }

          @Override
          public List<PodNetwork.TcpConnection> connections(String job, int podIndex) {
            return node.connectionsOf(job, podIndex);
          }
        });
  }

  @Override
  public boolean hasLiveProcesses(String job) {
    return node.hasLiveProcesses(job);
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  private static Path writeKubeconfig(String url, Path directory) {
    try {
      Files.createDirectories(directory);
      Path file = directory.resolve("kubeconfig");
      Files.writeString(
          file,
          """
          apiVersion: v1
          kind: Config
          current-context: e2e
          contexts:
          - name: e2e
            context: {cluster: mock, user: e2e, namespace: %s}
          clusters:
          - name: mock
            cluster: {server: "%s"}
          users:
          - name: e2e
            user: {token: e2e}
          """
              .formatted(NAMESPACE, url));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void saveArtifacts(String scenario, Path directory) {
    try {
      Files.createDirectories(directory);
      for (Path log : operator.logs()) {
        if (Files.exists(log)) {
          Files.copy(
              log, directory.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      ClusterDump.write(client, NAMESPACE, directory);
      for (CommJob job : client.resources(CommJob.class).inNamespace(NAMESPACE).list().getItems()) {
        for (SimulatedPod pod : node.podsOf(job.getMetadata().getName())) {
          if (Files.exists(pod.log())) {
            Files.copy(
                pod.log(),
                directory.resolve(pod.name() + ".log"),
                StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the artifacts of " + scenario, e);
    }
  }

  @Override
  public void close() {
    try {
      operator.close();
      node.close();
      garbageCollector.close();
      client.close();
      server.destroy();
    } finally {
      network.ifPresent(PodNetwork::close);
    }
  }
}
