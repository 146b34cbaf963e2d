package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A network of simulated pods on this machine: a Linux bridge and, per pod, a network namespace
 * joined to it by a veth pair, with an address of its own in a private subnet that exists only on
 * this bridge. Traffic between pods crosses a real network stack, so a pod's link can be cut or
 * rate-limited. Needs root; {@link #availability()} says whether it can be made here.
 */
public final class PodNetwork implements AutoCloseable {
  /** The bridge, and the host's address on it (where pods reach the API server). */
  static final String BRIDGE = "gcbr0";

  public static final String BRIDGE_ADDRESS = "10.213.0.1";
  static final int PREFIX_LENGTH = 16;

  /** Every namespace this class makes starts with this, so a later run finds stale ones. */
  static final String NAMESPACE_PREFIX = "gc-";

  private static final String HOST_VETH_PREFIX = "gcv";
  private static final String POD_INTERFACE = "eth0";
  private static final Path NETNS_ETC = Path.of("/etc/netns");
  private static final Path LOCK_FILE = Path.of("/run/gpucomm-e2e-pod-network.lock");

  private static PodNetwork shared;

  private final FileChannel lockChannel;
  private final FileLock lock;
  private final Map<String, PodLink> links = new ConcurrentHashMap<>();
  private final AtomicInteger nextHost = new AtomicInteger(1);
  private final AtomicInteger nextVeth = new AtomicInteger();
  private int users;

  private PodNetwork(FileChannel lockChannel, FileLock lock) {
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /** Whether network namespaces can be made here, and why not when they cannot. */
  public static Availability availability() {
    return AvailabilityProbe.RESULT;
  }

  /**
   * The network of this JVM, shared by everything that puts pods on it (a cluster's node, tests)
   * and made on first use: the bridge, after removing what an earlier run that was killed left
   * behind. Another run on this machine uses the same names: it waits until that one's network is
   * gone. Each caller closes what it acquired; the last close removes the network.
   */
  public static synchronized PodNetwork acquire() {
    if (shared == null) {
      shared = create();
    }
    shared.users++;
    return shared;
  }

  private static PodNetwork create() {
    if (availability() instanceof Availability.Unavailable unavailable) {
      throw new IllegalStateException("no pod network here: " + unavailable.reason());
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(LOCK_FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.lock();
      PodNetwork network = new PodNetwork(channel, lock);
      network.removeStale();
      IpCommand.run("ip", "link", "add", BRIDGE, "type", "bridge");
      IpCommand.run("ip", "addr", "add", BRIDGE_ADDRESS + "/" + PREFIX_LENGTH, "dev", BRIDGE);
      IpCommand.run("ip", "link", "set", BRIDGE, "up");
      return network;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot lock " + LOCK_FILE, e);
    }
  }

  /** Whether {@code address} is one this class gives pods (in the subnet, not the bridge's). */
  public static boolean isPodAddress(String address) {
    return address != null && address.startsWith("10.213.") && !address.startsWith("10.213.0.");
  }

  /** A new address in the bridge's subnet, never given out before by this network. */
  public String allocateAddress() {
    int host = nextHost.getAndIncrement();
    // 10.213.0.x is the bridge's own row; pods count from 10.213.1.1, 254 to a row.
    return "10.213." + (1 + (host - 1) / 254) + "." + (1 + (host - 1) % 254);
  }

  /**
   * Makes namespace {@code namespace} with one interface at {@code address} on the bridge, the
   * bridge as its default route, and {@code hosts} as its /etc/hosts (for processes started with
   * {@code ip netns exec}).
   */
  public PodLink attach(String namespace, String address, Map<String, String> hosts) {
    if (!namespace.startsWith(NAMESPACE_PREFIX)) {
      throw new IllegalArgumentException("namespace " + namespace + " lacks " + NAMESPACE_PREFIX);
    }
    if (Files.exists(Path.of("/run/netns", namespace))) {
      IpCommand.runIgnoringFailure("ip", "netns", "del", namespace);
    }
    String hostVeth = HOST_VETH_PREFIX + nextVeth.getAndIncrement();
    PodLink link = new PodLink(namespace, address, hostVeth);
    writeHosts(namespace, hosts);
    links.put(namespace, link);
    try {
      IpCommand.run("ip", "netns", "add", namespace);
      IpCommand.run(
          "ip",
          "link",
          "add",
          hostVeth,
          "type",
          "veth",
          "peer",
          "name",
          POD_INTERFACE,
          "netns",
          namespace);
      IpCommand.run("ip", "link", "set", hostVeth, "master", BRIDGE, "up");
      IpCommand.run(
          "ip",
          "-n",
          namespace,
          "addr",
          "add",
          address + "/" + PREFIX_LENGTH,
          "dev",
          POD_INTERFACE);
      IpCommand.run("ip", "-n", namespace, "link", "set", POD_INTERFACE, "up");
      IpCommand.run("ip", "-n", namespace, "link", "set", "lo", "up");
      IpCommand.run("ip", "-n", namespace, "route", "add", "default", "via", BRIDGE_ADDRESS);
      return link;
    } catch (RuntimeException e) {
      detach(link);
      throw e;
    }
  }

  /** Removes the pod's namespace and its link; processes still inside lose their network. */
  public void detach(PodLink link) {
    links.remove(link.namespace(), link);
    IpCommand.runIgnoringFailure("ip", "link", "del", link.hostVeth());
    IpCommand.runIgnoringFailure("ip", "netns", "del", link.namespace());
    deleteTree(NETNS_ETC.resolve(link.namespace()));
  }

  /** Cuts the pod's link, as a pulled cable does: nothing goes in or out, no error is sent. */
  public void cut(PodLink link) {
    IpCommand.run("ip", "link", "set", link.hostVeth(), "down");
  }

  /** The TCP connections established inside the pod's namespace now. */
  public List<TcpConnection> establishedConnections(PodLink link) {
    return IpCommand.output(
            "ip", "netns", "exec", link.namespace(), "ss", "-Htn", "state", "established")
        .stream()
        .map(TcpConnection::parse)
        .flatMap(Optional::stream)
        .toList();
  }

  /** One established TCP connection, as {@code ss} shows it from the pod's side. */
  public record TcpConnection(String local, int localPort, String peer, int peerPort) {
    /** A line of {@code ss -Htn}: receive queue, send queue, local and peer address:port. */
    static Optional<TcpConnection> parse(String line) {
      String[] columns = line.strip().split("\\s+");
      if (columns.length < 4) {
        return Optional.empty();
      }
      int local = columns[2].lastIndexOf(':');
      int peer = columns[3].lastIndexOf(':');
      try {
        return Optional.of(
            new TcpConnection(
                columns[2].substring(0, local),
                Integer.parseInt(columns[2].substring(local + 1)),
                columns[3].substring(0, peer),
                Integer.parseInt(columns[3].substring(peer + 1))));
      } catch (RuntimeException e) {
        return Optional.empty();
      }
    }

    /** Whether either end is on {@code port}. */
    public boolean uses(int port) {
      return localPort == port || peerPort == port;
    }
  }

  /** Limits the pod's link in both directions with a token bucket filter. */
  public void limit(PodLink link, LinkLimit limit) {
    List<String> tbf = limit.tbfArguments();
    IpCommand.run(concat(List.of("tc", "qdisc", "replace", "dev", link.hostVeth()), tbf));
    IpCommand.run(
        concat(
            List.of("tc", "-n", link.namespace(), "qdisc", "replace", "dev", POD_INTERFACE), tbf));
  }

  /** The words that run a command inside the pod's namespace. */
  public List<String> execPrefix(PodLink link) {
    return List.of("ip", "netns", "exec", link.namespace());
  }

  /** The pods attached now. */
  public List<PodLink> links() {
    return List.copyOf(links.values());
  }

  /** Gives back what {@link #acquire()} gave; the last user's close removes the network. */
  @Override
  public void close() {
    synchronized (PodNetwork.class) {
      if (--users > 0) {
        return;
      }
      shared = null;
    }
    try {
      links.values().forEach(this::detach);
      IpCommand.runIgnoringFailure("ip", "link", "del", BRIDGE);
    } finally {
      try {
        lock.release();
      } catch (IOException e) {
        // closing the channel releases it too
      }
      closeQuietly(lockChannel);
    }
  }

  /** What a killed earlier run left: its namespaces, host-side veths and bridge. */
  private void removeStale() {
    for (String line : IpCommand.output("ip", "netns", "list")) {
      String name = line.split(" ", 2)[0];
      if (name.startsWith(NAMESPACE_PREFIX)) {
        IpCommand.runIgnoringFailure("ip", "netns", "del", name);
      }
    }
    for (String line : IpCommand.output("ip", "-o", "link", "show")) {
      // "12: gcv3@if2: <...>": the name ends at '@' or ':'.
      String[] fields = line.split(": ", 3);
      if (fields.length < 2) {
        continue;
      }
      String name = fields[1].split("@", 2)[0];
      if (name.startsWith(HOST_VETH_PREFIX) || name.equals(BRIDGE)) {
        IpCommand.runIgnoringFailure("ip", "link", "del", name);
      }
    }
    if (Files.isDirectory(NETNS_ETC)) {
      try (Stream<Path> entries = Files.list(NETNS_ETC)) {
        entries
            .filter(p -> p.getFileName().toString().startsWith(NAMESPACE_PREFIX))
            .forEach(PodNetwork::deleteTree);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list " + NETNS_ETC, e);
      }
    }
  }

  /** /etc/netns/NAME/hosts, which {@code ip netns exec} mounts over /etc/hosts. */
  private static void writeHosts(String namespace, Map<String, String> hosts) {
    StringBuilder text = new StringBuilder("127.0.0.1 localhost\n::1 localhost\n");
    hosts.forEach((name, address) -> text.append(address).append(' ').append(name).append('\n'));
    try {
      Path directory = Files.createDirectories(NETNS_ETC.resolve(namespace));
      Files.writeString(directory.resolve("hosts"), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the hosts file of " + namespace, e);
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing more to release
      }
    }
  }

  /** One pod's place on the bridge: its namespace, its address and the host end of its veth. */
  public record PodLink(String namespace, String address, String hostVeth) {}

  /** A token bucket filter's settings, as {@code tc} reads them (e.g. 8mbit, 32kb, 50ms). */
  public record LinkLimit(String rate, String burst, String latency) {
    List<String> tbfArguments() {
      return List.of("root", "tbf", "rate", rate, "burst", burst, "latency", latency);
    }
  }

  /** Whether this machine can make network namespaces for the simulated pods. */
  public sealed interface Availability {
    /** Root, and {@code ip netns add} works. */
    record Available() implements Availability {}

    /** Why not, in words for a skipped test's reason. */
    record Unavailable(String reason) implements Availability {}
  }

  /** Probed once per JVM: a namespace made and removed again. */
  private static final class AvailabilityProbe {
    static final Availability RESULT = probe();

    private static Availability probe() {
      if (!System.getProperty("os.name", "").equals("Linux")) {
        return new Availability.Unavailable(
            "network namespaces are Linux's; this is " + System.getProperty("os.name"));
      }
      long uid = IpCommand.effectiveUid();
      if (uid != 0) {
        return new Availability.Unavailable(
            "network namespaces need root; this runs as uid " + uid);
      }
      String probe = NAMESPACE_PREFIX + "probe-" + ProcessHandle.current().pid();
      IpCommand.Result added = IpCommand.attempt("ip", "netns", "add", probe);
      if (added.exitCode() != 0) {
        return new Availability.Unavailable(
            "'ip netns add' failed (exit " + added.exitCode() + "): " + added.output().strip());
      }
      IpCommand.runIgnoringFailure("ip", "netns", "del", probe);
      return new Availability.Available();
    }
  }
}
