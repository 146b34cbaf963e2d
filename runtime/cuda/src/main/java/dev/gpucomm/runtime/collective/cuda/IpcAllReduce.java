package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.BufferChecks;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * gpucomm's own one-shot and two-shot all-reduce over CUDA IPC peer memory among the ranks of one
 * node: the peer buffers, the kernels over them, the host path beside them, and how the kernels run
 * now ({@link KernelShape}).
 *
 * <p>The kernels push each rank's input into the peers' receive areas, so they read the caller's
 * input and write the caller's output only locally: eager calls need no staging copy, and a call
 * captured into a CUDA graph replays with the same buffers and fresh epochs (which live in device
 * memory and are advanced by the kernels). Calls must be ordered with respect to each other: they
 * share one signal area, and two in flight at once would deadlock.
 *
 * <p>{@link CudaCommunicator} routes its {@code oneshot} and {@code twoshot} calls here; the
 * methods that force one kernel, retune the kernels or record a call's timeline are for probing the
 * kernels and not taken by the communicator's calls.
 */
public final class IpcAllReduce implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(IpcAllReduce.class.getName());

  private final CudaDevice device;
  private final RankTopology topology;
  private final Arena arena;
  private final PeerMemory peerMemory;
  private final AllReduceKernels kernels;
  private final HostPath hostPath;
  private final String hostPathReason;
  private final int blockLimit;
  private final long oneShotStreamMinBytes;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile KernelShape shape;
  private volatile CallTimeline timeline;

  /**
   * What the node's ranks must share before their all-reduce kernels meet: the peer buffer and its
   * Lamport areas (where data lands), the settings that pick a kernel and its pipeline for a size
   * (blocks, chunks, warp-specialized thresholds, the host path) and the grid they resolve to on
   * this GPU. Ranks that differ would run different kernels on the same flags.
   */
  static NodeGeometry geometry(CudaCommunicatorSettings settings, int multiprocessors) {
    HostPathSettings hostPath = settings.hostPath();
    return NodeGeometry.empty()
        .with("GPUCOMM_PEER_BUFFER_BYTES", settings.maxBytes())
        .with("GPUCOMM_LAMPORT_MAX_BYTES", settings.lamportMaxBytes())
        .with("GPUCOMM_LAMPORT2_MAX_BYTES", settings.lamport2MaxBytes())
        .with("GPUCOMM_ONESHOT_BLOCKS", settings.oneShotBlocks())
        .with("GPUCOMM_TWOSHOT_BLOCKS", settings.twoShotBlocks())
        .with("GPUCOMM_LAMPORT_BLOCKS", settings.lamportBlocks())
        .with("GPUCOMM_ONESHOT_CHUNKS", settings.oneShotChunks())
        .with("GPUCOMM_TWOSHOT_CHUNKS", settings.twoShotChunks())
        .with("GPUCOMM_ONESHOT_WS_MIN_BYTES", settings.oneShotWsMinBytes())
        .with("GPUCOMM_ONESHOT_STREAM_MIN_BYTES", settings.oneShotStreamMinBytes())
        .with("GPUCOMM_TWOSHOT_WS_MIN_BYTES", settings.twoShotWsMinBytes())
        .with("GPUCOMM_HOST_PATH", hostPath.mode().name().toLowerCase(Locale.ROOT))
        .with("GPUCOMM_HOST_PATH_MIN_BYTES", hostPath.minBytes())
        .with("GPUCOMM_HOST_PATH_SHARE", hostPath.oneShotShare() + "/" + hostPath.twoShotShare())
        .with("GPUCOMM_HOST_PATH_CHUNKS", hostPath.chunks())
        .with(
            "all-reduce blocks at most (the GPU's multiprocessors, or maxBlocks)",
            settings.blockLimit(multiprocessors));
  }

  /**
   * Takes ownership of the parts: {@code arena} holds the kernels' parameters, {@code hostPath} is
   * null when it is off for {@code hostPathReason}.
   */
  IpcAllReduce(
      CudaDevice device,
      RankTopology topology,
      CudaCommunicatorSettings settings,
      Arena arena,
      PeerMemory peerMemory,
      AllReduceKernels kernels,
      HostPath hostPath,
      String hostPathReason) {
    this.device = device;
    this.topology = topology;
    this.arena = arena;
    this.peerMemory = peerMemory;
    this.kernels = kernels;
    this.hostPath = hostPath;
    this.hostPathReason = hostPathReason;
    this.blockLimit = settings.blockLimit(device.multiprocessors());
    this.oneShotStreamMinBytes = settings.oneShotStreamMinBytes();
    this.shape = settings.kernelShape(topology.localWorldSize()).fittedTo(blockLimit);
  }

  /**
   * Where the host path is on by default ({@code GPUCOMM_HOST_PATH=auto}), times it against the
   * same call without it on every rank of the node together and keeps it only where it pays on this
   * host; {@code on} takes it untried.
   */
  void tryHostPath(KeyValueStore store, String prefix, CudaCommunicatorSettings settings) {
    if (hostPath == null || settings.hostPath().mode() != HostPathSettings.Mode.AUTO) {
      return;
    }
    HostPath.Route route = hostPath.defaultRoute().orElse(null);
    if (route == null) {
      return;
    }
    long bytes = HostPathTrial.trialBytes(settings.hostPath(), peerMemory.layout().maxBytes());
    long hostBytes = hostPath.shareOf(route, bytes);
    AllReduceKernels.Variant nvlinkOnly =
        route == HostPath.Route.ONE_SHOT ? shape.oneShotKernel(bytes) : shape.twoShotKernel(bytes);
    HostPathTrial.Outcome outcome =
        HostPathTrial.run(
            device,
            store,
            prefix + "/node-" + topology.nodeIndex() + "/host-path-trial",
            topology.localRank(),
            topology.localWorldSize(),
            settings.rendezvousTimeout(),
            bytes,
            (in, out, stream) ->
                hostAllReduce(
                    route, in.address(), out.address(), bytes, hostBytes, DType.BF16, stream),
            (in, out, stream) ->
                peerAllReduce(nvlinkOnly, in.address(), out.address(), bytes, DType.BF16, stream));
    if (outcome.pays()) {
      if (topology.rank() == 0) {
        LOG.fine("host path on: " + outcome.describe(route));
      }
    } else {
      hostPath.takeNoCallsByDefault(
          "slower on this host: " + outcome.describe(route) + " (GPUCOMM_HOST_PATH=on forces it)");
      if (topology.rank() == 0) {
        LOG.fine("host path off: " + hostPath.notTakenReason());
      }
    }
  }

  /** The largest call the peer buffers take in one pass, in bytes; larger calls take several. */
  public long maxBytes() {
    return peerMemory.layout().maxBytes();
  }

  /** Why calls do not take the host path by default (empty when they do). */
  public String hostPathReason() {
    return hostPath == null ? hostPathReason : hostPath.notTakenReason();
  }

  /**
   * Bytes of a call of {@code bytes} that {@code kernel} (one of {@link #hostPathKernels}) sends
   * through host memory when forced by name.
   */
  public long hostPathShareOf(String kernel, long bytes) {
    HostPath.Route route = AllReduceKernels.Variant.named(kernel).hostRoute();
    if (hostPath == null || route == null) {
      throw new IllegalArgumentException(kernel + " takes no host path here");
    }
    return hostPath.shareOf(route, bytes);
  }

  /**
   * The kernels with a host path that run here when forced by name ({@link #allReduceWith}), the
   * ones calls take by default first; empty when the host path is off.
   */
  public List<String> hostPathKernels() {
    if (hostPath == null) {
      return List.of();
    }
    List<String> taken = new ArrayList<>();
    List<String> forcedOnly = new ArrayList<>();
    for (HostPath.Route route : HostPath.Route.values()) {
      if (route.runsOn(topology.localWorldSize())) {
        String name = AllReduceKernels.Variant.withHostPath(route).kernelPrefix;
        (hostPath.takes(route) ? taken : forcedOnly).add(name);
      }
    }
    taken.addAll(forcedOnly);
    return List.copyOf(taken);
  }

  /**
   * The kernel that {@code kernel} (one of {@link #hostPathKernels}) runs over NVLink alone, e.g.
   * {@code twoshot_ws} for {@code twoshot_wsh}; any other kernel is its own.
   *
   * @throws IllegalArgumentException when no kernel has that name
   */
  public static String withoutHostPath(String kernel) {
    return AllReduceKernels.Variant.named(kernel).withoutHostPath().kernelPrefix;
  }

  /**
   * Changes how the kernels run (grids, Lamport size limit, pipeline chunks; grids are capped at
   * the GPU's multiprocessors and at the settings' maxBlocks). Every rank must call this with the
   * same shape while no collective is in flight anywhere (after synchronizing its streams), and the
   * ranks must meet (a store barrier) before the next collective: the vector-to-block mapping
   * changes, and the Lamport slots are refilled.
   */
  public synchronized void tune(KernelShape newShape) {
    checkOpen();
    long capacity = peerMemory.layout().lamportRankStride();
    if (newShape.lamportMaxBytes() > capacity) {
      throw new IllegalArgumentException(
          "lamport size limit must be at most "
              + capacity
              + " (GPUCOMM_LAMPORT_MAX_BYTES), got "
              + newShape.lamportMaxBytes());
    }
    long capacity2 = peerMemory.layout().lamport2MaxBytes();
    if (newShape.lamport2MaxBytes() > capacity2) {
      throw new IllegalArgumentException(
          "lamport two-shot size limit must be at most "
              + capacity2
              + " (GPUCOMM_LAMPORT2_MAX_BYTES), got "
              + newShape.lamport2MaxBytes());
    }
    KernelShape fitted = newShape.fittedTo(blockLimit);
    if (fitted.lamportBlocks() != shape.lamportBlocks()) {
      Stream stream = device.defaultStream();
      peerMemory.resetLamport(stream);
      stream.synchronize();
    }
    shape = fitted;
  }

  /** How the kernels run now. */
  public KernelShape kernelShape() {
    return shape;
  }

  /** Records where each following call's time goes on this GPU; null stops recording. */
  public void attachTimeline(CallTimeline newTimeline) {
    timeline = newTimeline;
  }

  /**
   * Runs one kernel chosen by name (e.g. {@code lamport}, {@code oneshot_ws}, {@code twoshot_wsh})
   * instead of the one the kernel shape picks for the size, to compare kernels at the same size. A
   * host-path kernel runs over NVLink alone where its host share is empty. A call larger than the
   * kernel's receive buffers runs through them in passes.
   */
  public void allReduceWith(
      String kernel,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    checkOpen();
    long bytes = BufferChecks.bytes("all-reduce", count, dtype, 1);
    BufferChecks.requireCapacity("all-reduce", "input", input, bytes);
    BufferChecks.requireCapacity("all-reduce", "output", output, bytes);
    AllReduceKernels.Variant chosen = AllReduceKernels.Variant.named(kernel);
    HostPath.Route route = chosen.hostRoute();
    if (route != null) {
      if (hostPath == null) {
        throw new IllegalStateException("the host path is off: " + hostPathReason);
      }
      if (!route.runsOn(topology.localWorldSize())) {
        throw new IllegalArgumentException(
            chosen.kernelPrefix + " joins two ranks, this node has " + topology.localWorldSize());
      }
    }
    if (chosen == AllReduceKernels.Variant.ONESHOT_STREAM) {
      streamedAllReduce(input.address(), output.address(), bytes, dtype, stream);
      return;
    }
    long passBytes =
        Math.min(
            peerMemory.layout().maxBytes(),
            switch (chosen) {
              case LAMPORT -> peerMemory.layout().lamportRankStride();
              case LAMPORT2 -> peerMemory.layout().lamport2MaxBytes();
              default -> peerMemory.layout().maxBytes();
            });
    for (long offset = 0; offset < bytes; offset += passBytes) {
      long in = input.address() + offset;
      long out = output.address() + offset;
      long thisPass = Math.min(passBytes, bytes - offset);
      long hostBytes = route == null ? 0 : hostPath.shareOf(route, thisPass);
      if (hostBytes > 0) {
        hostAllReduce(route, in, out, thisPass, hostBytes, dtype, stream);
      } else {
        peerAllReduce(chosen.withoutHostPath(), in, out, thisPass, dtype, stream);
      }
    }
  }

  /**
   * The kernel that the shape picks for {@code route} at this size, or its host-path variant where
   * the call takes that. The communicator has checked the buffers and that it is open.
   */
  void allReduce(
      HostPath.Route route,
      DeviceBuffer input,
      DeviceBuffer output,
      long bytes,
      DType dtype,
      Stream stream) {
    // A call larger than the peer buffers runs through them in passes of whole buffers: a large
    // one-shot streams them in one launch (oneshot_stream), otherwise each pass is a complete call
    // with its own barriers; within a pass the kernels pipeline their own chunks.
    // Pass boundaries are multiples of the buffer's alignment, so no vector straddles two passes.
    long passBytes = peerMemory.layout().maxBytes();
    if (route == HostPath.Route.ONE_SHOT && bytes > passBytes && bytes >= oneShotStreamMinBytes) {
      streamedAllReduce(input.address(), output.address(), bytes, dtype, stream);
      return;
    }
    for (long offset = 0; offset < bytes; offset += passBytes) {
      allReducePass(
          route,
          input.address() + offset,
          output.address() + offset,
          Math.min(passBytes, bytes - offset),
          dtype,
          stream);
    }
  }

  private void allReducePass(
      HostPath.Route route, long in, long out, long bytes, DType dtype, Stream stream) {
    AllReduceKernels.Variant kernel =
        route == HostPath.Route.ONE_SHOT ? shape.oneShotKernel(bytes) : shape.twoShotKernel(bytes);
    long hostBytes = hostPath == null ? 0 : hostPath.hostBytes(route, bytes);
    if (hostBytes > 0) {
      hostAllReduce(route, in, out, bytes, hostBytes, dtype, stream);
    } else {
      peerAllReduce(kernel, in, out, bytes, dtype, stream);
    }
  }

  private void peerAllReduce(
      AllReduceKernels.Variant variant, long in, long out, long bytes, DType dtype, Stream stream) {
    requireFitsPeerBuffer(bytes);
    if (bytes == 0) {
      // Nothing to reduce, and the kernels must not advance their epochs without meeting peers.
      return;
    }
    CallTimeline recording = timeline;
    synchronized (kernels) {
      if (recording != null) {
        recording.beginCall(stream);
      }
      KernelShape current = shape;
      kernels.launch(
          variant, dtype, in, out, bytes, current.blocks(variant), current.chunks(variant), stream);
      if (recording != null) {
        recording.mark("kernel end", stream);
      }
    }
  }

  /**
   * {@code oneshot_stream} over the call in passes of the peer buffer, as few launches as the flags
   * allow: they number a launch's chunks in 16 bits, {@code passes * chunks} of them.
   */
  private void streamedAllReduce(long in, long out, long bytes, DType dtype, Stream stream) {
    if (bytes == 0) {
      return;
    }
    long passBytes = peerMemory.layout().maxBytes();
    CallTimeline recording = timeline;
    synchronized (kernels) {
      if (recording != null) {
        recording.beginCall(stream);
      }
      KernelShape current = shape;
      int chunks = current.chunks(AllReduceKernels.Variant.ONESHOT_STREAM);
      long launchBytes = passBytes * streamedPassesPerLaunch(chunks);
      for (long offset = 0; offset < bytes; offset += launchBytes) {
        kernels.launchStreamed(
            dtype,
            in + offset,
            out + offset,
            Math.min(launchBytes, bytes - offset),
            passBytes,
            current.blocks(AllReduceKernels.Variant.ONESHOT_STREAM),
            chunks,
            stream);
      }
      if (recording != null) {
        recording.mark("kernel end", stream);
      }
    }
  }

  /** Passes of one {@code oneshot_stream} launch: its chunk numbers must stay below 2^16 - 1. */
  static long streamedPassesPerLaunch(int chunks) {
    return ((1 << 16) - 1) / chunks;
  }

  private void requireFitsPeerBuffer(long bytes) {
    if (bytes > peerMemory.layout().maxBytes()) {
      throw new IllegalArgumentException(
          "all-reduce of "
              + bytes
              + " bytes exceeds the peer buffer of "
              + peerMemory.layout().maxBytes()
              + " bytes (GPUCOMM_PEER_BUFFER_BYTES)");
    }
  }

  /** The one-shot or two-shot kernel whose first {@code hostBytes} go through host memory. */
  private void hostAllReduce(
      HostPath.Route route,
      long in,
      long out,
      long bytes,
      long hostBytes,
      DType dtype,
      Stream stream) {
    // The staging holds the share of the largest call the peer buffer takes.
    requireFitsPeerBuffer(bytes);
    int hostChunks = hostPath.settings().chunks();
    AllReduceKernels.Variant variant = AllReduceKernels.Variant.withHostPath(route);
    CallTimeline recording = timeline;
    synchronized (kernels) {
      if (recording != null) {
        recording.beginCall(stream);
      }
      KernelShape current = shape;
      hostPath.startCopies(route, in, hostBytes, hostChunks, stream, recording);
      if (recording != null) {
        recording.mark("kernel start", stream);
      }
      kernels.launch(
          variant,
          dtype,
          in,
          out,
          bytes,
          current.blocks(variant),
          current.chunks(variant),
          hostBytes,
          hostChunks,
          stream);
      if (recording != null) {
        recording.mark("kernel end", stream);
      }
      hostPath.joinCopies(stream);
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("IPC all-reduce of rank " + topology.rank() + " is closed");
    }
  }

  /**
   * Releases the parts after the last call has completed on every rank: the host path (its copies
   * read and write peer memory), then peer memory, then the kernels' parameters.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<AutoCloseable> oldestFirst = new ArrayList<>();
    oldestFirst.add(arena);
    oldestFirst.add(peerMemory);
    if (hostPath != null) {
      oldestFirst.add(hostPath);
    }
    RuntimeException failure = Closing.newestFirst(oldestFirst);
    if (failure != null) {
      throw failure;
    }
  }
}
