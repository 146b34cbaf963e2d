package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every pod in a network namespace of its own ({@code gc-<job>-<index>}) on a {@link PodNetwork}:
 * its own address and port space, its job's pod DNS names in its /etc/hosts, and the rendezvous
 * store on pod 0's address at the port the operator declared, as in a cluster.
 */
final class NamespacePerPod implements PodNetworking {
  private final PodNetwork network;
  private final Map<PodSlot, String> addresses = new ConcurrentHashMap<>();
  private final Map<PodSlot, PodNetwork.PodLink> links = new ConcurrentHashMap<>();

  NamespacePerPod(PodNetwork network) {
    this.network = network;
  }

  @Override
  public String address(PodSlot pod) {
    return addresses.computeIfAbsent(pod, p -> network.allocateAddress());
  }

  @Override
  public String rendezvous(PodSlot pod, int declaredPort) {
    return address(pod.sibling(0)) + ":" + declaredPort;
  }

  @Override
  public List<String> connect(PodSlot pod) {
    Map<String, String> hosts = new LinkedHashMap<>();
    for (int index = 0; index < pod.podCount(); index++) {
      PodSlot sibling = pod.sibling(index);
      hosts.put(sibling.dnsName(), address(sibling));
      hosts.put(sibling.dnsName() + ".cluster.local", address(sibling));
    }
    // A pod's own hostname resolves to its address, as in a cluster.
    hosts.put(pod.job() + "-" + pod.index(), address(pod));
    hosts.put(machineHostname(), address(pod));
    PodNetwork.PodLink link = network.attach(namespaceOf(pod), address(pod), hosts);
    links.put(pod, link);
    return network.execPrefix(link);
  }

  @Override
  public String nodeName(PodSlot pod) {
    return "sim-node-" + pod.job() + "-" + pod.index();
  }

  @Override
  public void disconnect(PodSlot pod) {
    PodNetwork.PodLink link = links.remove(pod);
    if (link != null) {
      network.detach(link);
    }
  }

  /** The link of the job's pod of that index while it runs: its latest run's. */
  Optional<PodNetwork.PodLink> linkOf(String job, int index) {
    return links.entrySet().stream()
        .filter(e -> e.getKey().job().equals(job) && e.getKey().index() == index)
        .max(Comparator.comparingInt(e -> e.getKey().attempt()))
        .map(Map.Entry::getValue);
  }

  PodNetwork network() {
    return network;
  }

  static String namespaceOf(PodSlot pod) {
    return PodNetwork.NAMESPACE_PREFIX
        + pod.job()
        + "-"
        + pod.index()
        + (pod.attempt() > 0 ? "-r" + pod.attempt() : "");
  }

  private static String machineHostname() {
    return Optional.ofNullable(System.getenv("HOSTNAME"))
        .filter(name -> !name.isBlank())
        .orElseGet(
            () -> {
              try {
                return Files.readString(Path.of("/etc/hostname")).strip();
              } catch (IOException e) {
                return "localhost";
              }
            });
  }
}
