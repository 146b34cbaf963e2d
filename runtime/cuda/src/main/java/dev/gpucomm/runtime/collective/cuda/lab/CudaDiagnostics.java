package dev.gpucomm.runtime.collective.cuda.lab;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.cuda.CudaBackend;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicator;
import dev.gpucomm.runtime.collective.cuda.CudaCommunicatorSettings;
import dev.gpucomm.runtime.collective.cuda.IpcAllReduce;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.files.FileProblem;
import dev.gpucomm.runtime.files.ReplacingFile;
import dev.gpucomm.runtime.nccl.NcclApi;
import dev.gpucomm.runtime.rendezvous.RendezvousAddress;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.rendezvous.TcpStoreServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Diagnostics of the CUDA backend on one host, one process per GPU: checks every all-reduce
 * algorithm and kernel variant against a float64 reference (odd sizes, back-to-back calls with
 * sizes changing, CUDA-graph replay mixed with eager calls), the NCCL collectives and cuBLAS, then
 * times all-reduce eager and from CUDA graphs and, optionally, sweeps kernel block counts.
 *
 * <pre>
 * GPUCOMM_MAIN=dev.gpucomm.runtime.collective.cuda.lab.CudaDiagnostics \
 *   gpucomm --rank R --world W --store HOST:PORT [--check] [--bench [--samples N]
 *   [--runners LABEL,...] [--tokens T,...]] [--timeline] [--tune | --tune-chunks] [--json FILE]
 * </pre>
 *
 * {@code --runners} and {@code --tokens} restrict the bench to those runners (labels as printed,
 * e.g. {@code kernel:oneshot_wsh}) and token counts; {@code --timeline} prints, per rank, where the
 * time of back-to-back calls of the kernel with the host path goes step by step (its copies
 * included), beside the same kernel without it.
 *
 * <p>Rank 0 hosts the store. Exit status 1 when any check fails.
 */
public final class CudaDiagnostics {
  private final DiagnosticsSession session;

  private CudaDiagnostics(DiagnosticsSession session) {
    this.session = session;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(args));
  }

  /**
   * Runs the diagnostics with {@code args}; the exit status (1 when a check failed). {@code gpucomm
   * diag} calls this rather than {@link #main}, so that its own end (a check that standard output
   * took everything) still runs.
   */
  public static int run(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    int world = wholeNumber(options, "--world", "1", 1, MAX_WORLD);
    int rank = wholeNumber(options, "--rank", "0", 0, world - 1);
    // Checked before the store and the GPU: a bad value would otherwise surface on one rank only,
    // after the communicator is up, and leave the others waiting for it.
    int samples = wholeNumber(options, "--samples", "100", 1, MAX_SAMPLES);
    int[] tokens = tokenCounts(options);
    RendezvousAddress address =
        RendezvousAddress.parse(options.getOrDefault("--store", "127.0.0.1:29500"), "--store");
    Path json = options.containsKey("--json") ? jsonFile(options.get("--json")) : null;
    if (json != null) {
      // a file that cannot be written is said now, not after the GPU work, and by every rank (the
      // ranks share this host): a rank 0 that stopped alone would leave the others waiting
      try {
        ReplacingFile.tryReplacing(json);
      } catch (IOException e) {
        throw new UsageException("--json " + json + ": " + FileProblem.of(json, e));
      }
    }
    CudaBackend backend = new CudaBackend();
    if (backend.deviceCount() == 0) {
      // said before the store: every rank of a host without a GPU would first wait for the others
      throw new IllegalStateException("no CUDA device: " + backend.unavailableReason());
    }
    // the store serves this world only: a rank started with another --world is refused, not met
    TcpStoreServer server = rank == 0 ? startStore(address, world) : null;
    int status;
    try (TcpStoreClient store =
        TcpStoreClient.connect(address, rank, world, DiagnosticsSession.TIMEOUT)) {
      RankTopology topology = new RankTopology(rank, world, rank, world);
      try (CudaDevice device = (CudaDevice) backend.open(rank)) {
        long start = System.nanoTime();
        CudaCommunicator communicator =
            CudaCommunicator.create(
                device, store, topology, CudaCommunicatorSettings.fromEnvironment());
        try {
          CudaDiagnostics diagnostics =
              new CudaDiagnostics(
                  new DiagnosticsSession(topology, store, device, communicator, json));
          diagnostics.describe(backend, (System.nanoTime() - start) / 1e9);
          status = diagnostics.run(options, samples, tokens);
        } finally {
          communicator.close();
        }
      }
      store.barrier("diagnostics/done", world, DiagnosticsSession.TIMEOUT);
    } finally {
      if (server != null) {
        server.awaitAllRanksGone(Duration.ofSeconds(30));
        server.close();
      }
    }
    return status;
  }

  /**
   * Rank 0's store, listening on the --store address only: the ranks share this host, and the store
   * answers anyone who reaches it.
   */
  private static TcpStoreServer startStore(RendezvousAddress address, int world)
      throws IOException {
    InetAddress host;
    try {
      host = InetAddress.getByName(address.host());
    } catch (UnknownHostException e) {
      throw new UsageException("--store " + address + ": unknown host " + address.host());
    }
    try {
      return TcpStoreServer.startForWorld(host, address.port(), world);
    } catch (BindException e) {
      if (isOwnAddress(host)) {
        // the address is right: the port is taken, or not this user's to take
        throw new IllegalStateException("--store " + address + ": " + e.getMessage(), e);
      }
      throw new UsageException(
          "--store " + address + ": cannot listen there on this host (" + e.getMessage() + ")");
    }
  }

  /** Whether this host may listen on {@code host}: a wildcard, a loopback or an interface's. */
  static boolean isOwnAddress(InetAddress host) {
    if (host.isAnyLocalAddress() || host.isLoopbackAddress()) {
      return true;
    }
    try {
      return NetworkInterface.getByInetAddress(host) != null;
    } catch (SocketException e) {
      return false;
    }
  }

  private static Path jsonFile(String text) {
    if (text.isBlank()) {
      throw new UsageException("--json needs a file name");
    }
    try {
      return Path.of(text);
    } catch (InvalidPathException e) {
      throw new UsageException("--json '" + text + "': not a file path (" + e.getReason() + ")");
    }
  }

  /** One process per GPU of this host: more than this many is a mistake, not a host. */
  private static final int MAX_WORLD = 64;

  /**
   * The option's value as a whole number from {@code min} to {@code max}, refused up front naming
   * the option: a rank outside the world would otherwise wait for its peers until the store's
   * timeout.
   */
  private static int wholeNumber(
      Map<String, String> options, String option, String fallback, int min, int max) {
    String text = options.getOrDefault(option, fallback);
    int value;
    try {
      value = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(option + ": '" + text + "' is not a whole number");
    }
    if (value < min || value > max) {
      throw new UsageException(option + ": must be from " + min + " to " + max + ", got " + value);
    }
    return value;
  }

  /** Timed samples per point: each takes a pair of CUDA events, so their number is bounded. */
  private static final int MAX_SAMPLES = 100_000;

  /** Token counts of the bench's tensors (hidden 8192): a million rows is 16 GiB of bf16. */
  private static final int MAX_TOKENS = 1 << 20;

  /** The options that take a value, and those that are switches. */
  private static final Set<String> VALUE_OPTIONS =
      Set.of("--rank", "--world", "--store", "--samples", "--runners", "--tokens", "--json");

  private static final Set<String> SWITCHES =
      Set.of("--check", "--bench", "--timeline", "--tune", "--tune-chunks");

  /**
   * The options, every one known and every value present: a mistyped switch would otherwise run no
   * check and report that all checks passed.
   */
  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (VALUE_OPTIONS.contains(option)) {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          throw new UsageException(option + " needs a value");
        }
        options.put(option, args[++i]);
      } else if (SWITCHES.contains(option)) {
        options.put(option, "true");
      } else {
        throw new UsageException(
            "unknown option '" + option + "' (known: " + String.join(" ", known()) + ")");
      }
    }
    return options;
  }

  private static List<String> known() {
    List<String> known = new ArrayList<>(VALUE_OPTIONS);
    known.addAll(SWITCHES);
    Collections.sort(known);
    return known;
  }

  /** --tokens as whole numbers from 1 to 1,048,576 (default 4096). */
  private static int[] tokenCounts(Map<String, String> options) {
    String text = options.getOrDefault("--tokens", "4096");
    String[] items = text.split(",", -1);
    int[] tokens = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      try {
        tokens[i] = Integer.parseInt(items[i].trim());
      } catch (NumberFormatException e) {
        throw new UsageException("--tokens: '" + items[i] + "' is not a whole number");
      }
      if (tokens[i] < 1 || tokens[i] > MAX_TOKENS) {
        throw new UsageException(
            "--tokens: must be from 1 to " + MAX_TOKENS + ", got " + tokens[i]);
      }
    }
    return tokens;
  }

  private void describe(CudaBackend backend, double creationSeconds) {
    if (session.topology.rank() != 0) {
      return;
    }
    CudaDriverApi api = CudaDriverApi.get();
    session.out.printf(
        Locale.ROOT,
        "host: %d x %s (cc %s, %d SMs), CUDA driver %d, NCCL %s, world %d%n",
        backend.deviceCount(),
        session.device.name(),
        session.device.computeCapability().orElseThrow(),
        session.device.multiprocessors(),
        api.driverVersion(),
        ncclVersion(),
        session.topology.worldSize());
    session.out.printf(
        Locale.ROOT,
        "communicator: %s in %.2f s; unavailable: %s; host path: %s%n",
        session.communicator.allReduceAlgorithms(),
        creationSeconds,
        session.communicator.unavailableReason().isEmpty()
            ? "none"
            : session.communicator.unavailableReason(),
        hostPathState());
  }

  /** The NCCL version the communicator runs, e.g. "2.28.3"; empty without NCCL. */
  private String ncclVersion() {
    return session.communicator.allReduceAlgorithms().contains(Algorithm.NCCL)
        ? NcclApi.versionText(NcclApi.get().version())
        : "";
  }

  private String hostPathState() {
    if (!session.hasIpcAllReduce()) {
      return "off (no peer memory)";
    }
    IpcAllReduce kernels = session.ipcAllReduce();
    return kernels.hostPathReason().isEmpty()
        ? "on (" + String.join(", ", kernels.hostPathKernels()) + ")"
        : "off (" + kernels.hostPathReason() + ")";
  }

  private int run(Map<String, String> options, int samples, int[] tokens) {
    AllReduceTiming timing = new AllReduceTiming(session);
    if (options.containsKey("--check")) {
      new AllReduceChecks(session).run();
      new LibraryChecks(session).run();
      timing.measureHostCost();
    }
    if (options.containsKey("--bench")) {
      if (options.containsKey("--runners") || options.containsKey("--tokens")) {
        String runners = options.getOrDefault("--runners", "");
        timing.bench(samples, runners.isEmpty() ? List.of() : List.of(runners.split(",")), tokens);
      } else {
        timing.bench(samples);
      }
    }
    if (options.containsKey("--timeline")) {
      new CallTimelines(session).run();
    }
    ShapeSweeps sweeps = new ShapeSweeps(session, timing);
    if (options.containsKey("--tune")) {
      sweeps.grids();
    }
    if (options.containsKey("--tune") || options.containsKey("--tune-chunks")) {
      sweeps.chunks();
    }
    session.writeJson();
    List<String> failures = session.failures();
    for (String failure : failures) {
      System.err.println("rank " + session.topology.rank() + " FAILED " + failure);
    }
    if (session.isRankZero()) {
      session.out.println(
          failures.isEmpty() ? "diagnostics: all checks passed" : "diagnostics: FAILED");
    }
    return failures.isEmpty() ? 0 : 1;
  }
}
