package dev.gpucomm.runtime.rank;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.NetworkExpectation;
import dev.gpucomm.api.v1alpha1.NetworkSpec;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.BenchmarkWorkload;
import dev.gpucomm.runtime.bench.JobMemory;
import dev.gpucomm.runtime.bench.SelfTestWorkload;
import dev.gpucomm.runtime.bench.TuneWorkload;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.DeviceBackends;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.cpu.CpuBindMode;
import dev.gpucomm.runtime.device.cpu.CpuRankBinding;
import dev.gpucomm.runtime.fabric.FabricGather;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.fabric.FabricSweepWorkload;
import dev.gpucomm.runtime.fabric.LocalHost;
import dev.gpucomm.runtime.fabric.TransportCheck;
import dev.gpucomm.runtime.fabric.UnexpectedTransportException;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import dev.gpucomm.runtime.launch.MemoryCheck;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.launch.RankSettings;
import dev.gpucomm.runtime.launch.RankSettings.RankMode;
import dev.gpucomm.runtime.rendezvous.PeerWatch;
import dev.gpucomm.runtime.rendezvous.TcpStoreClient;
import dev.gpucomm.runtime.report.ProgressDisplay;
import dev.gpucomm.runtime.spec.JobLoader;
import dev.gpucomm.runtime.spec.LoadedJob;
import dev.gpucomm.runtime.workload.ProgramWorkload;
import dev.gpucomm.runtime.workload.RankContext;
import dev.gpucomm.runtime.workload.RankMemory;
import dev.gpucomm.runtime.workload.RankWorkload;
import dev.gpucomm.runtime.workload.WorkloadResult;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The life of one rank, top to bottom: load the job → join the rendezvous → open the device → build
 * the communicator → run the workload (which validates every result) → rank 0 publishes the report.
 * Every other class does one of these steps; this one only orders them.
 */
public final class RankMain {
  /** Name of the barrier every rank passes once all have joined. */
  static final String JOINED = "joined";

  /** Name of the barrier every rank passes after the workload, before releasing device memory. */
  static final String WORKLOAD_DONE = "workload-done";

  private final Site site;
  private final FaultInjection faults;
  private final CpuBindMode cpuBind;
  private final PrintStream out;
  private final PrintStream log;
  private final Consumer<String> onPeerFailure;
  private final Function<Throwable, RankError> onOwnFailure;

  /** Whether this rank's failure was already recorded and told to the others. */
  private boolean failureTold;

  /**
   * @param cpuBind whether a CPU-backend rank binds itself to CPUs of its own (its share of the
   *     allowed set)
   * @param out where rank 0 prints the results table
   * @param log where progress goes
   * @param onPeerFailure what to do when another rank dies while this one may be stuck in device
   *     work that will never finish (a supervised rank records the error and exits)
   * @param onOwnFailure records this rank's failure where its launcher reads it, and returns it as
   *     recorded, for the other ranks
   */
  public RankMain(
      Site site,
      FaultInjection faults,
      CpuBindMode cpuBind,
      PrintStream out,
      PrintStream log,
      Consumer<String> onPeerFailure,
      Function<Throwable, RankError> onOwnFailure) {
    this.site = site;
    this.faults = faults;
    this.cpuBind = cpuBind;
    this.out = out;
    this.log = log;
    this.onPeerFailure = onPeerFailure;
    this.onOwnFailure = onOwnFailure;
  }

  public void run(RankSettings settings) {
    // 1. The job.
    LoadedJob job = load(settings);
    RankTopology topology = settings.topology();
    Duration peerTimeout = Duration.ofSeconds(job.job().getSpec().getTimeoutSeconds());
    RankWorkload workload = workload(settings.mode(), job);
    if (deviceKind(settings, job) == DeviceKind.CPU) {
      // Before anything allocates or polls, so that both happen on the rank's own CPU.
      CpuRankBinding.apply(cpuBind, topology, log);
    }

    // 2. The rendezvous: every rank connects to the store and waits for the others.
    Instant rendezvousDeadline = startedAt(settings).plus(rendezvousTimeout(peerTimeout));
    TcpStoreClient store =
        TcpStoreClient.connect(
            settings.rendezvous(),
            topology.rank(),
            topology.worldSize(),
            settings.run(),
            timeLeft(rendezvousDeadline));
    WorkloadResult result;
    try (PeerWatch watch = store.watchPeers(onPeerFailure)) {
      store.barrier(JOINED, topology.worldSize(), timeLeft(rendezvousDeadline));
      faults.afterRendezvous(topology.rank(), topology.worldSize());
      result = onDevice(settings, job, workload, store, peerTimeout);
    } catch (RuntimeException | Error e) {
      tellFailure(store, e);
      throw e;
    }
    store.close();

    // 6. The report.
    if (topology.rank() == 0) {
      site.publish(result.files());
      if (!result.summaryMarkdown().isEmpty()) {
        out.println(result.summaryMarkdown());
      }
    }
  }

  /**
   * How long a rank waits for the store and for the others to join, together: a little less than
   * the job's timeout, which is also its launcher's limit for the whole run. A rank that gives up
   * first says which ranks never came ("never connected: 3"); a launcher that stops it first can
   * only say that the job timed out.
   */
  static Duration rendezvousTimeout(Duration jobTimeout) {
    Duration margin = jobTimeout.dividedBy(10);
    margin = margin.compareTo(MIN_MARGIN) < 0 ? MIN_MARGIN : margin;
    margin = margin.compareTo(MAX_MARGIN) > 0 ? MAX_MARGIN : margin;
    Duration wait = jobTimeout.minus(margin);
    return wait.compareTo(MIN_MARGIN) < 0 ? jobTimeout : wait;
  }

  private static final Duration MIN_MARGIN = Duration.ofSeconds(2);
  private static final Duration MAX_MARGIN = Duration.ofSeconds(10);

  /**
   * When the rank's wait began: for a supervised rank, when its process started, which is when its
   * launcher's limit began too (the JVM's start-up counts against both); otherwise now.
   */
  private static Instant startedAt(RankSettings settings) {
    Instant now = Instant.now();
    if (!settings.supervised()) {
      return now;
    }
    return ProcessHandle.current().info().startInstant().filter(now::isAfter).orElse(now);
  }

  /** The time left until {@code deadline}; a moment when none is left, so a wait fails at once. */
  private static Duration timeLeft(Instant deadline) {
    Duration left = Duration.between(Instant.now(), deadline);
    return left.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : left;
  }

  /** Steps 3 to 5: the device, the communicator over it, and the workload. */
  private WorkloadResult onDevice(
      RankSettings settings,
      LoadedJob job,
      RankWorkload workload,
      TcpStoreClient store,
      Duration peerTimeout) {
    RankTopology topology = settings.topology();
    DeviceKind kind = deviceKind(settings, job);
    DeviceBackend backend = backend(kind, job.name() + "-" + settings.rendezvous().port());
    try (Device device = withRoomForJob(backend.open(settings.deviceOrdinal()), job, settings);
        Communicator communicator = backend.createCommunicator(device, store, topology)) {
      try {
        return runWorkload(settings, job, workload, store, peerTimeout, device, communicator);
      } catch (RuntimeException | Error e) {
        // Before the communicator and the device close: their teardown may wait on peers that
        // wait on this rank (a peer's kernel spinning on its flags), and only the store can free
        // them. The communicator is then aborted, not closed: NCCL's destroy would wait for
        // collectives the failed run may never finish.
        try {
          tellFailure(store, e);
        } catch (RuntimeException | Error telling) {
          e.addSuppressed(telling);
        } finally {
          closeAfterFailure(communicator, e);
        }
        throw e;
      }
    }
  }

  /** Aborts the communicator after {@code failure}, which keeps whatever the abort throws. */
  private static void closeAfterFailure(Communicator communicator, Throwable failure) {
    try {
      communicator.closeAfterFailure();
    } catch (Throwable e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Records this rank's failure for its launcher, then leaves the store without a goodbye and with
   * the reason, so that the store fails the other ranks' waits at once, naming it. A failure that
   * only reports another rank's leaves without one: that rank has told the store its own. Once per
   * rank.
   */
  private void tellFailure(TcpStoreClient store, Throwable failure) {
    if (failureTold) {
      return;
    }
    failureTold = true;
    RankError error = onOwnFailure.apply(failure);
    if (error.kind() == RankError.Kind.PEER) {
      store.abandon();
    } else {
      store.abandon(error.message());
    }
  }

  private WorkloadResult runWorkload(
      RankSettings settings,
      LoadedJob job,
      RankWorkload workload,
      TcpStoreClient store,
      Duration peerTimeout,
      Device device,
      Communicator communicator) {
    RankTopology topology = settings.topology();
    checkFabric(job, communicator, store, topology, peerTimeout);
    faults.beforeWorkload(topology.rank(), topology.worldSize());
    ProgressDisplay progress = topology.rank() == 0 ? progress(settings) : ProgressDisplay.silent();
    WorkloadResult result =
        workload.run(
            new RankContext(
                job,
                topology,
                device,
                communicator,
                store,
                peerTimeout,
                progress,
                settings.dumpIr()));
    // No rank releases its shared memory while another may still read it.
    store.barrier(WORKLOAD_DONE, topology.worldSize(), peerTimeout);
    return result;
  }

  /**
   * Which transports NCCL chose: gathered on rank 0 and said once, then held by every rank against
   * {@code spec.network.expect} before any timed call (nothing on the CPU backend, which has no
   * NCCL).
   */
  private void checkFabric(
      LoadedJob job,
      Communicator communicator,
      TcpStoreClient store,
      RankTopology topology,
      Duration peerTimeout) {
    if (!usesNccl(communicator)) {
      return; // every rank alike: the store gathers below need them all
    }
    FabricObservation own = communicator.fabric();
    for (String line :
        FabricGather.describe(
            FabricGather.gather(own, store, topology.rank(), topology.worldSize(), peerTimeout))) {
      log.println("fabric: " + line);
    }
    NetworkSpec network = job.job().getSpec().getNetwork();
    if (network == null || network.getExpect() == null) {
      return;
    }
    List<String> hosts =
        FabricGather.hosts(
            LocalHost.name(), store, topology.rank(), topology.worldSize(), peerTimeout);
    TransportCheck.violation(network.getExpect(), own, topology.rank(), hosts)
        .ifPresent(
            violation -> {
              throw new UnexpectedTransportException(NetworkExpectation.FAILURE_PREFIX + violation);
            });
  }

  /**
   * {@code device}, once its free memory is known to hold the job's buffers: checked before the
   * communicator or the workload allocates anything, and in every pod, since the launcher sees only
   * its own host. Closes the device when refusing.
   */
  private static Device withRoomForJob(Device device, LoadedJob job, RankSettings settings) {
    try {
      RankMemory need = JobMemory.of(job.job(), device.kind());
      device
          .freeMemoryBytes()
          .ifPresent(
              free ->
                  MemoryCheck.requireDeviceRoom(
                      settings.jobSource(), need, settings.rank(), device.name(), free));
      return device;
    } catch (RuntimeException e) {
      device.close();
      throw e;
    }
  }

  private static DeviceKind deviceKind(RankSettings settings, LoadedJob job) {
    return settings.device().orElse(job.job().getSpec().getDevice());
  }

  private static boolean usesNccl(Communicator communicator) {
    return communicator.allReduceAlgorithms().contains(Algorithm.NCCL);
  }

  private ProgressDisplay progress(RankSettings settings) {
    return switch (settings.progress()) {
      case LIVE -> ProgressDisplay.terminal(log);
      case LINES -> ProgressDisplay.lines(log);
      case OFF -> ProgressDisplay.silent();
    };
  }

  private static LoadedJob load(RankSettings settings) {
    String text;
    try {
      text = BoundedFile.readText(settings.jobFile(), JobLoader.MAX_JOB_BYTES);
    } catch (UnreadableFileException e) {
      throw new UsageException(
          "cannot read the job file " + settings.jobFile() + ": " + e.getMessage(), e);
    }
    LoadedJob job = new JobLoader().load(text, settings.jobSource());
    int worldSize = job.job().getSpec().getWorldSize();
    if (worldSize != settings.worldSize()) {
      throw new UsageException(
          settings.jobSource()
              + ": spec.worldSize "
              + worldSize
              + " differs from WORLD_SIZE "
              + settings.worldSize());
    }
    return job;
  }

  /** The backend of {@code kind}; {@code instance} keeps concurrent runs' shared files apart. */
  private static DeviceBackend backend(DeviceKind kind, String instance) {
    DeviceBackends.Probe probe = new DeviceBackends(instance).probe(kind);
    if (!probe.usable()) {
      throw new UsageException("device " + kind + " is not usable here: " + probe.reason());
    }
    return probe.backend();
  }

  private RankWorkload workload(RankMode mode, LoadedJob job) {
    if (mode == RankMode.SELFTEST) {
      return new SelfTestWorkload();
    }
    WorkloadKind kind = job.job().getSpec().getWorkload().getKind();
    return switch (kind) {
      case BENCHMARK -> new BenchmarkWorkload(site.tuningTables());
      case TUNE -> new TuneWorkload(site.tuningTables());
      case FABRIC -> new FabricSweepWorkload();
      case PROGRAM ->
          ServiceLoader.load(ProgramWorkload.class)
              .findFirst()
              .orElseThrow(
                  () ->
                      new UsageException(
                          job.source()
                              + ": spec.workload.kind: program workloads need the host-IR module,"
                              + " which this build does not include"));
    };
  }
}
