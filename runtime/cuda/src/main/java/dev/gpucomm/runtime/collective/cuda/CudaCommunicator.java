package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.nccl.NcclApi;
import dev.gpucomm.runtime.nccl.NcclComm;
import dev.gpucomm.runtime.nccl.NcclDataType;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The collectives of one rank on NVIDIA GPUs: NCCL for {@code nccl} and for every collective other
 * than all-reduce, and gpucomm's own one-shot and two-shot all-reduce over CUDA IPC peer memory
 * among the ranks of one node.
 *
 * <p>The IPC kernels push each rank's input into the peers' receive areas, so they read the
 * caller's input and write the caller's output only locally: eager calls need no staging copy, and
 * a call captured into a CUDA graph replays with the same buffers and fresh epochs (which live in
 * device memory and are advanced by the kernels). One {@code oneshot} call at most {@link
 * CudaCommunicatorSettings#lamportMaxBytes()} runs the flag-free Lamport kernel.
 *
 * <p>Calls on one communicator must be ordered with respect to each other (one stream, or streams
 * ordered by events): the IPC algorithms share one signal area, and two in flight at once would
 * deadlock. Close the communicator on every rank after its last collective has completed.
 */
public final class CudaCommunicator implements Communicator {
  private static final Logger LOG = Logger.getLogger(CudaCommunicator.class.getName());

  private static final AtomicInteger CREATED = new AtomicInteger();

  private final CudaDevice device;
  private final RankTopology topology;
  private final CudaCommunicatorParts parts;
  private final NcclComm nccl;
  private final PeerMemory peerMemory;
  private final AllReduceKernels kernels;
  private final HostPath hostPath;
  private static final String HIERARCHICAL_UNAVAILABLE =
      "hierarchical: not on the cuda backend yet (it needs NCCL communicators split by local rank);"
          + " use nccl, which crosses nodes itself";

  private final Set<Algorithm> allReduceAlgorithms;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile CallTimeline timeline;
  private final int blockLimit;
  private volatile KernelShape shape;

  private CudaCommunicator(
      CudaDevice device,
      RankTopology topology,
      CudaCommunicatorParts parts,
      CudaCommunicatorSettings settings) {
    this.device = device;
    this.topology = topology;
    this.parts = parts;
    this.nccl = parts.nccl();
    this.peerMemory = parts.peerMemory();
    this.kernels = parts.kernels();
    this.hostPath = parts.hostPath();
    this.blockLimit = settings.blockLimit(device.multiprocessors());
    this.shape = settings.kernelShape(topology.localWorldSize()).fittedTo(blockLimit);
    this.allReduceAlgorithms = allReduceAlgorithms(nccl != null, kernels != null);
  }

  /** What all-reduce can run with NCCL and peer memory usable or not. */
  static Set<Algorithm> allReduceAlgorithms(boolean ncclUsable, boolean peerMemoryUsable) {
    EnumSet<Algorithm> algorithms = EnumSet.noneOf(Algorithm.class);
    if (ncclUsable) {
      algorithms.add(Algorithm.NCCL);
    }
    if (peerMemoryUsable) {
      algorithms.add(Algorithm.ONESHOT);
      algorithms.add(Algorithm.TWOSHOT);
    }
    return Set.copyOf(algorithms);
  }

  /**
   * Builds the communicator on every rank together: NCCL from a unique id that global rank 0 puts
   * in the store, and peer memory among the ranks of this rank's node.
   *
   * @throws IllegalStateException when neither NCCL nor peer memory can be used
   */
  public static CudaCommunicator create(
      CudaDevice device,
      KeyValueStore store,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    String prefix = "gpucomm/cuda/communicator-" + CREATED.incrementAndGet();
    device.bind();
    CudaCommunicatorParts parts =
        CudaCommunicatorParts.open(device, store, prefix, topology, settings);
    CudaCommunicator communicator = new CudaCommunicator(device, topology, parts, settings);
    try {
      communicator.tryHostPath(store, prefix, settings);
    } catch (RuntimeException e) {
      communicator.close();
      throw e;
    }
    return communicator;
  }

  /**
   * Where the host path is on by default ({@code GPUCOMM_HOST_PATH=auto}), times it against the
   * same call without it on every rank of the node together and keeps it only where it pays on this
   * host; {@code on} takes it untried.
   */
  private void tryHostPath(KeyValueStore store, String prefix, CudaCommunicatorSettings settings) {
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
                hostAllReduce(route, in, out, bytes, hostBytes, DType.BF16, stream),
            (in, out, stream) -> peerAllReduce(nvlinkOnly, in, out, bytes, DType.BF16, stream));
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

  /** Why calls do not take the host path by default (empty when they do). */
  public String hostPathReason() {
    return hostPath == null ? parts.hostPathReason() : hostPath.notTakenReason();
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
   * The kernels with a host path that this communicator runs when forced by name ({@link
   * #allReduceWith}), the ones its calls take by default first; empty when the host path is off.
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

  @Override
  public RankTopology topology() {
    return topology;
  }

  @Override
  public Set<Algorithm> allReduceAlgorithms() {
    return allReduceAlgorithms;
  }

  @Override
  public String unavailableReason() {
    List<String> reasons = new ArrayList<>();
    if (nccl == null) {
      reasons.add("nccl: " + parts.ncclReason());
    }
    if (kernels == null) {
      reasons.add("oneshot, twoshot: " + parts.peerReason());
    }
    reasons.add(HIERARCHICAL_UNAVAILABLE);
    return String.join("; ", reasons);
  }

  @Override
  public long maxPeerMemoryBytes() {
    return kernels == null ? 0 : peerMemory.layout().maxBytes();
  }

  /** The NCCL version this communicator runs, e.g. "2.28.3"; empty without NCCL. */
  public String ncclVersion() {
    return nccl == null ? "" : NcclApi.versionText(NcclApi.get().version());
  }

  /**
   * Tuning hook: changes how the peer-memory kernels run (grids, Lamport size limit, pipeline
   * chunks; grids are capped at the GPU's multiprocessors and at the settings' maxBlocks). Every
   * rank must call this with the same shape while no collective is in flight anywhere (after
   * synchronizing its streams), and the ranks must meet (a store barrier) before the next
   * collective: the vector-to-block mapping changes, and the Lamport slots are refilled.
   */
  public synchronized void tune(KernelShape newShape) {
    checkOpen();
    long capacity = peerMemory == null ? 0 : peerMemory.layout().lamportRankStride();
    if (newShape.lamportMaxBytes() > capacity) {
      throw new IllegalArgumentException(
          "lamport size limit must be at most "
              + capacity
              + " (GPUCOMM_LAMPORT_MAX_BYTES), got "
              + newShape.lamportMaxBytes());
    }
    long capacity2 = peerMemory == null ? 0 : peerMemory.layout().lamport2MaxBytes();
    if (newShape.lamport2MaxBytes() > capacity2) {
      throw new IllegalArgumentException(
          "lamport two-shot size limit must be at most "
              + capacity2
              + " (GPUCOMM_LAMPORT2_MAX_BYTES), got "
              + newShape.lamport2MaxBytes());
    }
    KernelShape fitted = newShape.fittedTo(blockLimit);
    if (peerMemory != null && fitted.lamportBlocks() != shape.lamportBlocks()) {
      Stream stream = device.defaultStream();
      peerMemory.resetLamport(stream);
      stream.synchronize();
    }
    shape = fitted;
  }

  /** How the peer-memory kernels run now. */
  public KernelShape kernelShape() {
    return shape;
  }

  @Override
  public void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    checkOpen();
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes);
    requireCapacity("output", output, bytes);
    switch (algorithm) {
      case NCCL ->
          nccl()
              .allReduce(
                  input.address(),
                  output.address(),
                  count,
                  NcclDataType.of(dtype),
                  NcclDataType.SUM,
                  CudaDevice.rawStream(stream));
      case ONESHOT ->
          ipcAllReduce(
              HostPath.Route.ONE_SHOT,
              shape.oneShotKernel(bytes),
              input,
              output,
              bytes,
              dtype,
              stream);
      case TWOSHOT ->
          ipcAllReduce(
              HostPath.Route.TWO_SHOT,
              shape.twoShotKernel(bytes),
              input,
              output,
              bytes,
              dtype,
              stream);
      case AUTO ->
          throw new IllegalArgumentException(
              "all-reduce algorithm auto must be resolved by a heuristic before the call");
      case RING ->
          throw new IllegalArgumentException(
              "all-reduce algorithm ring belongs to the cpu backend; use nccl on cuda");
      case HIERARCHICAL -> throw new IllegalArgumentException(HIERARCHICAL_UNAVAILABLE);
    }
  }

  /**
   * Runs one IPC all-reduce kernel with a chosen variant (oneshot, twoshot or lamport); the
   * diagnostics use this to compare the Lamport and flag kernels at the same size.
   */
  public void allReduceWith(
      String variant,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    checkOpen();
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes);
    requireCapacity("output", output, bytes);
    AllReduceKernels.Variant chosen = AllReduceKernels.Variant.named(variant);
    HostPath.Route route = chosen.hostRoute();
    if (route != null) {
      if (hostPath == null) {
        throw new IllegalStateException("the host path is off: " + parts.hostPathReason());
      }
      if (!route.runsOn(topology.localWorldSize())) {
        throw new IllegalArgumentException(
            chosen.kernelPrefix + " joins two ranks, this node has " + topology.localWorldSize());
      }
      long hostBytes = hostPath.shareOf(route, bytes);
      if (hostBytes > 0 && bytes <= peerMemory.layout().maxBytes()) {
        hostAllReduce(route, input, output, bytes, hostBytes, dtype, stream);
        return;
      }
      chosen = chosen.withoutHostPath();
    }
    long lamportCapacity = peerMemory == null ? 0 : peerMemory.layout().lamportRankStride();
    long lamport2Capacity = peerMemory == null ? 0 : peerMemory.layout().lamport2MaxBytes();
    if ((chosen == AllReduceKernels.Variant.LAMPORT && bytes > lamportCapacity)
        || (chosen == AllReduceKernels.Variant.LAMPORT2 && bytes > lamport2Capacity)) {
      throw new IllegalArgumentException(
          variant + " all-reduce of " + bytes + " bytes exceeds its buffer");
    }
    peerAllReduce(chosen, input, output, bytes, dtype, stream);
  }

  /** {@code kernel}, or its host-path variant along {@code route} where the call takes that. */
  private void ipcAllReduce(
      HostPath.Route route,
      AllReduceKernels.Variant kernel,
      DeviceBuffer input,
      DeviceBuffer output,
      long bytes,
      DType dtype,
      Stream stream) {
    long hostBytes = hostPath == null ? 0 : hostPath.hostBytes(route, bytes);
    if (hostBytes > 0) {
      hostAllReduce(route, input, output, bytes, hostBytes, dtype, stream);
    } else {
      peerAllReduce(kernel, input, output, bytes, dtype, stream);
    }
  }

  private void peerAllReduce(
      AllReduceKernels.Variant variant,
      DeviceBuffer input,
      DeviceBuffer output,
      long bytes,
      DType dtype,
      Stream stream) {
    if (kernels == null) {
      throw new IllegalStateException(
          "all-reduce " + variant.kernelPrefix + " is unavailable: " + parts.peerReason());
    }
    requireFitsPeerBuffer(bytes);
    if (bytes == 0) {
      // Nothing to reduce, and the kernels must not advance their epochs without meeting peers.
      return;
    }
    long in = input.address();
    long out = output.address();
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

  /** Records where each following call's time goes on this GPU; null stops recording. */
  public void attachTimeline(CallTimeline newTimeline) {
    timeline = newTimeline;
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
      DeviceBuffer input,
      DeviceBuffer output,
      long bytes,
      long hostBytes,
      DType dtype,
      Stream stream) {
    // The staging holds the share of the largest call the peer buffer takes.
    requireFitsPeerBuffer(bytes);
    long in = input.address();
    long out = output.address();
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

  @Override
  public void allGather(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    checkOpen();
    requireNccl(algorithm, "all-gather");
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes);
    requireCapacity("output", output, bytes * topology.worldSize());
    nccl()
        .allGather(
            input.address(),
            output.address(),
            count,
            NcclDataType.of(dtype),
            CudaDevice.rawStream(stream));
  }

  @Override
  public void reduceScatter(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    checkOpen();
    requireNccl(algorithm, "reduce-scatter");
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes * topology.worldSize());
    requireCapacity("output", output, bytes);
    nccl()
        .reduceScatter(
            input.address(),
            output.address(),
            count,
            NcclDataType.of(dtype),
            NcclDataType.SUM,
            CudaDevice.rawStream(stream));
  }

  @Override
  public void broadcast(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      int root,
      Stream stream) {
    checkOpen();
    requireNccl(algorithm, "broadcast");
    if (root < 0 || root >= topology.worldSize()) {
      throw new IllegalArgumentException(
          "broadcast root " + root + " outside world of " + topology.worldSize());
    }
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes);
    requireCapacity("output", output, bytes);
    nccl()
        .broadcast(
            input.address(),
            output.address(),
            count,
            NcclDataType.of(dtype),
            root,
            CudaDevice.rawStream(stream));
  }

  @Override
  public void sendReceive(
      DeviceBuffer send,
      int sendTo,
      DeviceBuffer receive,
      int receiveFrom,
      long bytes,
      Stream stream) {
    checkOpen();
    requireCapacity("send", send, bytes);
    requireCapacity("receive", receive, bytes);
    checkPeer("send", sendTo);
    checkPeer("receive", receiveFrom);
    NcclComm comm = nccl();
    MemorySegment raw = CudaDevice.rawStream(stream);
    comm.groupStart();
    try {
      comm.send(send.address(), bytes, NcclDataType.INT8, sendTo, raw);
      comm.recv(receive.address(), bytes, NcclDataType.INT8, receiveFrom, raw);
    } finally {
      comm.groupEnd();
    }
  }

  @Override
  public void collectivePermute(
      DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream) {
    checkOpen();
    int world = topology.worldSize();
    int rank = topology.rank();
    long bytes = count * dtype.bytes();
    requireCapacity("input", input, bytes);
    requireCapacity("output", output, bytes * world);
    device.copy(output, rank * bytes, input, 0, bytes, stream);
    if (world == 1) {
      return;
    }
    NcclComm comm = nccl();
    MemorySegment raw = CudaDevice.rawStream(stream);
    long in = input.address();
    long out = output.address();
    comm.groupStart();
    try {
      for (int step = 1; step < world; step++) {
        int source = (step + rank) % world;
        int target = (world + rank - step) % world;
        comm.recv(out + source * bytes, bytes, NcclDataType.INT8, source, raw);
        comm.send(in, bytes, NcclDataType.INT8, target, raw);
      }
    } finally {
      comm.groupEnd();
    }
  }

  private NcclComm nccl() {
    if (nccl == null) {
      throw new IllegalStateException("NCCL is unavailable: " + parts.ncclReason());
    }
    return nccl;
  }

  private static void requireNccl(Algorithm algorithm, String collective) {
    if (algorithm != Algorithm.NCCL) {
      throw new IllegalArgumentException(
          collective + " runs only with algorithm nccl on cuda, got " + algorithm);
    }
  }

  private void checkPeer(String what, int peer) {
    if (peer < 0 || peer >= topology.worldSize()) {
      throw new IllegalArgumentException(
          what + " peer " + peer + " outside world of " + topology.worldSize());
    }
  }

  private static void requireCapacity(String name, DeviceBuffer buffer, long bytes) {
    if (bytes < 0 || buffer.byteSize() < bytes) {
      throw new IllegalArgumentException(
          name + " buffer has " + buffer.byteSize() + " bytes, the call needs " + bytes);
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("communicator of rank " + topology.rank() + " is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      parts.close();
    }
  }

  @Override
  public String toString() {
    return "cuda communicator rank "
        + topology.rank()
        + " of "
        + topology.worldSize()
        + " "
        + allReduceAlgorithms;
  }
}
