package dev.gpucomm.e2e.sim;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays kubelet for the pods of CommJobs: watches pods labelled {@value CommJob#JOB_LABEL}, runs
 * each one's container as a local process group with the pod's environment and mounted files, and
 * reports Running, then Succeeded or Failed with the exit code and termination message. A deleted
 * pod's processes are stopped. Every pod runs on one node whose address is the loopback address;
 * given a {@link PodNetwork}, each pod has a network namespace and an address of its own.
 */
public final class NodeSimulator implements AutoCloseable {
  /** The address of the simulated node, its pods and the jobs' headless services. */
  public static final String NODE_ADDRESS = "127.0.0.1";

  private static final Logger LOG = LoggerFactory.getLogger(NodeSimulator.class);
  private static final Duration GRACE_PERIOD = Duration.ofSeconds(2);

  private final KubernetesClient client;
  private final ContainerCommand command;
  private final NodeAddressing addressing;
  private final Path workDirectory;
  private final Map<String, SimulatedPod> podsByUid = new ConcurrentHashMap<>();
  private final Set<String> heldPods = ConcurrentHashMap.newKeySet();

  /** Pods of which only the first by that name is held: the held one's UID, "" until it comes. */
  private final Map<String, String> firstPodsHeld = new ConcurrentHashMap<>();

  private final ExecutorService kubelet =
      Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("kubelet-", 0).factory());
  private SharedIndexInformer<Pod> informer;

  public NodeSimulator(
      KubernetesClient client,
      String apiServerUrl,
      Path java,
      String runtimeClasspath,
      String cliMainClass,
      Path workDirectory) {
    this(
        client,
        apiServerUrl,
        java,
        runtimeClasspath,
        cliMainClass,
        workDirectory,
        new SharedLoopback());
  }

  /** A node whose pods each get a network namespace of their own on {@code network}. */
  public NodeSimulator(
      KubernetesClient client,
      String apiServerUrl,
      Path java,
      String runtimeClasspath,
      String cliMainClass,
      Path workDirectory,
      PodNetwork network) {
    this(
        client,
        apiServerUrl,
        java,
        runtimeClasspath,
        cliMainClass,
        workDirectory,
        new NamespacePerPod(network));
  }

  private NodeSimulator(
      KubernetesClient client,
      String apiServerUrl,
      Path java,
      String runtimeClasspath,
      String cliMainClass,
      Path workDirectory,
      PodNetworking networking) {
    this.client = client;
    this.command = new ContainerCommand(java, runtimeClasspath, cliMainClass);
    this.addressing = new NodeAddressing(apiServerUrl, networking);
    this.workDirectory = workDirectory;
  }

  /** Starts watching pods in every namespace. */
  public void start() {
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withLabel(CommJob.JOB_LABEL)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    admit(pod);
                  }

                  @Override
                  public void onUpdate(Pod before, Pod pod) {
                    if (pod.getMetadata().getDeletionTimestamp() != null) {
                      evict(pod);
                    } else {
                      admit(pod);
                    }
                  }

                  @Override
                  public void onDelete(Pod pod, boolean finalStateUnknown) {
                    evict(pod);
                  }
                },
                0);
  }

  /**
   * Makes the pod of that name never start its container (it stays Pending in ContainerCreating),
   * so its ranks never join the job.
   */
  public void holdPod(String namespace, String podName) {
    heldPods.add(namespace + "/" + podName);
  }

  /**
   * Makes the first pod of that name never start its container, as {@link #holdPod} does; a pod
   * created again under its name starts.
   */
  public void holdFirstPod(String namespace, String podName) {
    firstPodsHeld.put(namespace + "/" + podName, "");
  }

  private boolean held(String key, String uid) {
    if (heldPods.contains(key)) {
      return true;
    }
    String heldUid = firstPodsHeld.computeIfPresent(key, (k, held) -> held.isEmpty() ? uid : held);
    return uid.equals(heldUid);
  }

  /** The pods this node has run or runs, oldest first, of one job. */
  public List<SimulatedPod> podsOf(String job) {
    return podsByUid.values().stream().filter(p -> p.job().equals(job)).toList();
  }

  /** Whether any process of any pod of the job (running or deleted) is still alive. */
  public boolean hasLiveProcesses(String job) {
    return podsOf(job).stream().anyMatch(SimulatedPod::hasLiveProcesses);
  }

  /** The processes of the job's pods still alive, described by pod, pid and command. */
  public List<String> liveProcessesOf(String job) {
    return podsOf(job).stream().flatMap(pod -> pod.liveProcesses().stream()).toList();
  }

  /**
   * Kills (SIGKILL) the process of one rank of a job: the process whose environment says RANK=rank,
   * or the whole container when its pod runs that rank alone.
   */
  public void killRank(String job, int rank, int ranksPerPod) {
    String podName = job + "-" + (rank / ranksPerPod);
    SimulatedPod pod =
        podsOf(job).stream()
            .filter(p -> p.name().equals(podName) && p.hasLiveProcesses())
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no running pod " + podName));
    ProcessGroup group =
        pod.processGroup()
            .orElseThrow(() -> new IllegalStateException("process groups unsupported here"));
    List<ProcessHandle> rankProcesses = group.membersWithEnv("RANK", Integer.toString(rank));
    if (rankProcesses.isEmpty() && ranksPerPod == 1) {
      rankProcesses = group.members();
    }
    if (rankProcesses.isEmpty()) {
      throw new IllegalStateException("no process of rank " + rank + " in pod " + podName);
    }
    LOG.info("killing rank {} of {}: processes {}", rank, job, rankProcesses);
    rankProcesses.forEach(ProcessHandle::destroyForcibly);
  }

  private void admit(Pod pod) {
    String uid = pod.getMetadata().getUid();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (podsByUid.containsKey(uid) || "Succeeded".equals(phase) || "Failed".equals(phase)) {
      return;
    }
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String job = pod.getMetadata().getLabels().get(CommJob.JOB_LABEL);
    Path directory =
        workDirectory
            .resolve(namespace)
            .resolve(name + "-" + uid.substring(Math.max(0, uid.length() - 12)));
    SimulatedPod simulated = new SimulatedPod(client, pod, job, directory);
    if (podsByUid.putIfAbsent(uid, simulated) != null) {
      return;
    }
    if (held(namespace + "/" + name, uid)) {
      kubelet.submit(() -> markContainerCreating(pod));
    } else {
      kubelet.submit(() -> simulated.start(pod, command, addressing));
    }
  }

  private void evict(Pod pod) {
    SimulatedPod simulated = podsByUid.get(pod.getMetadata().getUid());
    if (simulated != null) {
      kubelet.submit(() -> simulated.stop(GRACE_PERIOD));
    }
  }

  private void markContainerCreating(Pod pod) {
    String now = Instant.now().toString();
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .editStatus(
              current -> {
                current.setStatus(
                    new PodStatusBuilder()
                        .withPhase("Pending")
                        .withConditions(
                            new PodConditionBuilder()
                                .withType("PodScheduled")
                                .withStatus("True")
                                .withLastTransitionTime(now)
                                .build())
                        .withContainerStatuses(
                            new ContainerStatusBuilder()
                                .withName(pod.getSpec().getContainers().getFirst().getName())
                                .withReady(false)
                                .withRestartCount(0)
                                .withState(
                                    new ContainerStateBuilder()
                                        .withNewWaiting()
                                        .withReason("ContainerCreating")
                                        .endWaiting()
                                        .build())
                                .build())
                        .build());
                return current;
              });
    } catch (KubernetesClientException e) {
      LOG.warn("pod {}: status not written", pod.getMetadata().getName(), e);
    }
  }

  /** Cuts the link of the job's running pod of that index (its veth goes down). */
  public void cutLink(String job, int podIndex) {
    NamespacePerPod namespaces = namespaces();
    namespaces.network().cut(runningLink(namespaces, job, podIndex));
  }

  /** Rate-limits the link of the job's running pod of that index, in both directions. */
  public void limitLink(String job, int podIndex, PodNetwork.LinkLimit limit) {
    NamespacePerPod namespaces = namespaces();
    namespaces.network().limit(runningLink(namespaces, job, podIndex), limit);
  }

  /** The TCP connections established in the network namespace of the job's pod of that index. */
  public List<PodNetwork.TcpConnection> connectionsOf(String job, int podIndex) {
    NamespacePerPod namespaces = namespaces();
    return namespaces.network().establishedConnections(runningLink(namespaces, job, podIndex));
  }

  /** Whether each pod has a network namespace (and a link) of its own. */
  public boolean hasPodNetwork() {
    return addressing.networking() instanceof NamespacePerPod;
  }

  private NamespacePerPod namespaces() {
    if (addressing.networking() instanceof NamespacePerPod namespaces) {
      return namespaces;
    }
    throw new IllegalStateException("this node's pods share the loopback address: no pod links");
  }

  private static PodNetwork.PodLink runningLink(
      NamespacePerPod namespaces, String job, int podIndex) {
    return namespaces
        .linkOf(job, podIndex)
        .orElseThrow(
            () -> new IllegalStateException("pod " + podIndex + " of " + job + " has no link now"));
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    podsByUid.values().forEach(p -> p.stop(Duration.ZERO));
    kubelet.shutdownNow();
    try {
      kubelet.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
