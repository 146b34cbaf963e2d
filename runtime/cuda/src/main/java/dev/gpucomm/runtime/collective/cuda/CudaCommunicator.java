package dev.gpucomm.runtime.collective.cuda;

import static dev.gpucomm.runtime.collective.BufferChecks.bytes;
import static dev.gpucomm.runtime.collective.BufferChecks.requireCapacity;
import static dev.gpucomm.runtime.collective.BufferChecks.requireRank;
import static dev.gpucomm.runtime.collective.cuda.HostPath.Route.ONE_SHOT;
import static dev.gpucomm.runtime.collective.cuda.HostPath.Route.TWO_SHOT;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.fabric.CommunicatorFabric;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.nccl.NcclComm;
import dev.gpucomm.runtime.nccl.NcclDataType;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The collectives of one rank on NVIDIA GPUs: routes {@code nccl} and every collective other than
 * all-reduce to NCCL, {@code oneshot} and {@code twoshot} all-reduce to gpucomm's own kernels over
 * CUDA IPC peer memory among the ranks of one node ({@link IpcAllReduce}), {@code oneshot} and
 * {@code copyengine} all-gather and reduce-scatter to gpucomm's own pushes over peer memory ({@link
 * GatherScatter}), and, for ranks on several nodes, {@code hierarchical} all-reduce to {@link
 * HierarchicalAllReduce}.
 *
 * <p>Calls on one communicator must be ordered with respect to each other (one stream, or streams
 * ordered by events): the IPC algorithms share one signal area, and two in flight at once would
 * deadlock. Close the communicator on every rank after its last collective has completed.
 */
public final class CudaCommunicator implements Communicator, FusedAllReduce {

  private final CudaDevice device;
  private final RankTopology topology;
  private final CudaCommunicatorParts parts;
  private final NcclComm nccl;
  private final IpcAllReduce ipcAllReduce;
  private final GatherScatter gatherScatter;
  private final HierarchicalAllReduce hierarchical;
  private static final String ALL_REDUCE = "all-reduce";
  private static final String ALL_GATHER = "all-gather";
  private static final String REDUCE_SCATTER = "reduce-scatter";
  private static final String BROADCAST = "broadcast";
  private static final String SEND_RECEIVE = "send/receive";
  private static final String COLLECTIVE_PERMUTE = "collective permute";

  private final Set<Algorithm> allReduceAlgorithms;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile FusionKernels fusionKernels;

  private CudaCommunicator(CudaDevice device, RankTopology topology, CudaCommunicatorParts parts) {
    this.device = device;
    this.topology = topology;
    this.parts = parts;
    this.nccl = parts.nccl();
    this.ipcAllReduce = parts.ipcAllReduce();
    this.gatherScatter = parts.gatherScatter();
    this.hierarchical = parts.hierarchical();
    EnumSet<Algorithm> algorithms = EnumSet.noneOf(Algorithm.class);
    algorithms.addAll(allReduceAlgorithms(nccl != null, ipcAllReduce != null));
    if (hierarchical != null) {
      algorithms.add(Algorithm.HIERARCHICAL);
    }
    this.allReduceAlgorithms = Collections.unmodifiableSet(algorithms);
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
    return Collections.unmodifiableSet(algorithms);
  }

  /**
   * Builds the communicator on every rank together: NCCL from a unique id that global rank 0 puts
   * in the store, and peer memory among the ranks of this rank's node.
   *
   * @throws IllegalStateException when neither NCCL nor peer memory can be used, or when the ranks
   *     differ on whether NCCL is usable or on GPUCOMM_PEER_MEMORY
   */
  public static CudaCommunicator create(
      CudaDevice device,
      KeyValueStore store,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    // The n-th communicator a rank creates meets the n-th of every other rank. Counted in the
    // store per rank, not per process: ranks that share a process (tests, one launcher running
    // several ranks as threads) would otherwise each take their own number and never meet.
    long ordinal = store.add("gpucomm/cuda/communicators-created/rank-" + topology.rank(), 1);
    String prefix = "gpucomm/cuda/communicator-" + ordinal;
    device.bind();
    CudaCommunicatorParts parts =
        CudaCommunicatorParts.open(device, store, prefix, topology, settings);
    CudaCommunicator communicator = new CudaCommunicator(device, topology, parts);
    try {
      if (communicator.ipcAllReduce != null) {
        communicator.ipcAllReduce.tryHostPath(store, prefix, settings);
      }
    } catch (RuntimeException e) {
      communicator.close();
      throw e;
    }
    return communicator;
  }

  /**
   * The IPC all-reduce that {@code oneshot} and {@code twoshot} run on, to probe its kernels one by
   * one; empty when peer memory is off ({@link #unavailableReason} says why).
   */
  public Optional<IpcAllReduce> ipcAllReduce() {
    return Optional.ofNullable(ipcAllReduce);
  }

  /** What all-gather and reduce-scatter can run with NCCL and gather memory usable or not. */
  static Set<Algorithm> gatherAlgorithms(boolean ncclUsable, boolean gatherUsable) {
    EnumSet<Algorithm> algorithms = EnumSet.noneOf(Algorithm.class);
    if (ncclUsable) {
      algorithms.add(Algorithm.NCCL);
    }
    if (gatherUsable) {
      algorithms.add(Algorithm.ONESHOT);
      algorithms.add(Algorithm.COPYENGINE);
    }
    return Collections.unmodifiableSet(algorithms);
  }

  /** All-gather and reduce-scatter also run over peer memory; the others as by default. */
  @Override
  public Set<Algorithm> algorithms(Collective collective) {
    return switch (collective) {
      case ALLGATHER, REDUCESCATTER -> gatherAlgorithms(nccl != null, gatherScatter != null);
      default -> Communicator.super.algorithms(collective);
    };
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
    if (ipcAllReduce == null) {
      reasons.add("oneshot, twoshot: " + parts.peerReason());
    }
    if (gatherScatter == null) {
      reasons.add("all-gather and reduce-scatter oneshot, copyengine: " + parts.gatherReason());
    }
    if (hierarchical == null) {
      reasons.add("hierarchical: " + parts.hierarchicalReason());
    }
    return String.join("; ", reasons);
  }

  @Override
  public FabricObservation fabric() {
    return parts.fabric();
  }

  /**
   * The flat communicator's transports and, on ranks spanning pods, those of the communicator that
   * hierarchical all-reduce crosses pods on.
   */
  @Override
  public List<CommunicatorFabric> fabrics() {
    List<CommunicatorFabric> fabrics = new ArrayList<>();
    fabrics.add(new CommunicatorFabric(CommunicatorFabric.WORLD, parts.fabric()));
    if (!topology.singleNode() && nccl != null) {
      fabrics.add(new CommunicatorFabric(CommunicatorFabric.ACROSS_PODS, parts.acrossPodsFabric()));
    }
    return List.copyOf(fabrics);
  }

  /** What NCCL's cross-pod communicator connected the pods over, agreed by every rank. */
  @Override
  public PodLink podLink() {
    return parts.podLink();
  }

  @Override
  public long maxPeerMemoryBytes() {
    return ipcAllReduce == null ? 0 : ipcAllReduce.maxBytes();
  }

  /**
   * All-gather and reduce-scatter run slot by slot over their own memory: any size. Broadcast and
   * collective permute run on NCCL only: no peer-memory algorithm, so 0, as for a collective whose
   * peer memory did not open.
   */
  @Override
  public long maxPeerMemoryBytes(Collective collective) {
    return switch (collective) {
      case ALLGATHER, REDUCESCATTER -> gatherScatter == null ? 0 : Long.MAX_VALUE;
      case BROADCAST, COLLECTIVEPERMUTE -> 0;
      case ALLREDUCE -> maxPeerMemoryBytes();
    };
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
    long bytes = bytes(ALL_REDUCE, count, dtype, 1);
    requireCapacity(ALL_REDUCE, "input", input, bytes);
    requireCapacity(ALL_REDUCE, "output", output, bytes);
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
          requireIpc(algorithm).allReduce(ONE_SHOT, input, output, bytes, dtype, stream);
      case TWOSHOT ->
          requireIpc(algorithm).allReduce(TWO_SHOT, input, output, bytes, dtype, stream);
      case AUTO ->
          throw new IllegalArgumentException(
              "all-reduce algorithm auto must be resolved by a heuristic before the call");
      case RING ->
          throw new IllegalArgumentException(
              "all-reduce algorithm ring belongs to the cpu backend; use nccl on cuda");
      case HIERARCHICAL -> requireHierarchical().allReduce(input, output, count, dtype, stream);
      case COPYENGINE ->
          throw new IllegalArgumentException(
              "all-reduce has no copyengine algorithm; use oneshot, twoshot or nccl");
    }
  }

  /**
   * The peer-memory variant that runs {@code algorithm} for {@code collective}, or null for NCCL.
   */
  private GatherScatter.Variant gatherVariant(Algorithm algorithm, String collective) {
    GatherScatter.Variant variant =
        switch (algorithm) {
          case NCCL -> null;
          case ONESHOT -> GatherScatter.Variant.KERNEL;
          case COPYENGINE -> GatherScatter.Variant.COPY_ENGINE;
          default ->
              throw new IllegalArgumentException(
                  collective + " runs with nccl, oneshot or copyengine on cuda, got " + algorithm);
        };
    if (variant != null && gatherScatter == null) {
      throw new IllegalStateException(
          collective + " " + algorithm.wireName() + " is unavailable: " + parts.gatherReason());
    }
    return variant;
  }

  private HierarchicalAllReduce requireHierarchical() {
    if (hierarchical == null) {
      throw new IllegalStateException(
          "all-reduce hierarchical is unavailable: " + parts.hierarchicalReason());
    }
    return hierarchical;
  }

  /**
   * {@code oneshot} and {@code twoshot} run fusion.cu's fused kernels over their own peer memory
   * (one-shot as the Lamport kernel up to the plain one-shot's Lamport size); {@code nccl} runs
   * NCCL all-reduce into {@code residualOut}, then gpucomm's add + RMSNorm kernel, the unfused
   * baseline.
   */
  @Override
  public Set<Algorithm> fusedAllReduceAlgorithms() {
    EnumSet<Algorithm> algorithms = EnumSet.noneOf(Algorithm.class);
    if (nccl != null) {
      algorithms.add(Algorithm.NCCL);
    }
    if (parts.fusedPeer() != null) {
      algorithms.add(Algorithm.ONESHOT);
      algorithms.add(Algorithm.TWOSHOT);
    }
    return Collections.unmodifiableSet(algorithms);
  }

  @Override
  public Optional<String> fusedRefusal(
      Algorithm algorithm, long tokens, DType dtype, NormEpilogue epilogue) {
    if (algorithm == Algorithm.NCCL) {
      long rowBytes = (long) epilogue.hiddenSize() * dtype.bytes();
      return rowBytes % 16 == 0
          ? Optional.empty()
          : Optional.of(
              "rows of %d %s elements are not whole 16-byte vectors"
                  .formatted(epilogue.hiddenSize(), dtype.wireName()));
    }
    FusedPeerAllReduce fused = parts.fusedPeer();
    if (fused == null) {
      return Optional.of(
          algorithm.wireName() + " has no fused kernels here: " + parts.fusedPeerReason());
    }
    return fused.refusal(tokens, dtype, epilogue);
  }

  /**
   * The peer-memory kernel a fused call of {@code algorithm} and this shape runs; empty where NCCL
   * or nothing runs it (the GPU tests check which kernel they exercised).
   */
  Optional<FusedPeerAllReduce.Kernel> fusedKernel(
      Algorithm algorithm, long tokens, DType dtype, NormEpilogue epilogue) {
    FusedPeerAllReduce fused = parts.fusedPeer();
    if (algorithm == Algorithm.NCCL || fused == null) {
      return Optional.empty();
    }
    return Optional.of(fused.kernel(algorithm, tokens, dtype, epilogue));
  }

  @Override
  public void allReduceResidualRmsNorm(
      Algorithm algorithm,
      FusedBuffers buffers,
      long tokens,
      DType dtype,
      NormEpilogue epilogue,
      Stream stream) {
    checkOpen();
    if (!fusedAllReduceAlgorithms().contains(algorithm)) {
      throw new IllegalArgumentException(
          "all-reduce + residual + RMSNorm runs %s on the cuda backend, not %s"
              .formatted(fusedAllReduceAlgorithms(), algorithm));
    }
    if (buffers.residualIn() == buffers.residualOut()) {
      throw new IllegalArgumentException(
          ALL_REDUCE + ": residualOut must be a buffer other than residualIn");
    }
    long count = tokens * epilogue.hiddenSize();
    long bytes = bytes(ALL_REDUCE, count, dtype, 1);
    requireCapacity(ALL_REDUCE, "input", buffers.input(), bytes);
    requireCapacity(ALL_REDUCE, "residualIn", buffers.residualIn(), bytes);
    requireCapacity(ALL_REDUCE, "residualOut", buffers.residualOut(), bytes);
    requireCapacity(
        ALL_REDUCE, "gamma", buffers.gamma(), (long) epilogue.hiddenSize() * dtype.bytes());
    requireCapacity(
        ALL_REDUCE, "output", buffers.output(), count * epilogue.outputElementBytes(dtype));
    if (algorithm != Algorithm.NCCL) {
      FusedPeerAllReduce fused = parts.fusedPeer();
      Optional<String> refusal = fused.refusal(tokens, dtype, epilogue);
      if (refusal.isPresent()) {
        throw new IllegalArgumentException(
            "all-reduce + residual + RMSNorm " + algorithm.wireName() + ": " + refusal.get());
      }
      fused.launch(
          fused.kernel(algorithm, tokens, dtype, epilogue),
          buffers,
          tokens,
          dtype,
          epilogue,
          stream);
      return;
    }
    nccl()
        .allReduce(
            buffers.input().address(),
            buffers.residualOut().address(),
            count,
            NcclDataType.of(dtype),
            NcclDataType.SUM,
            CudaDevice.rawStream(stream));
    fusionKernels().addRmsNorm(buffers, tokens, dtype, epilogue, stream);
  }

  /**
   * Loaded on the first fused call rather than at creation, so that a communicator that never runs
   * a fused pattern does not depend on fusion.ptx; the first call is a warm-up call.
   */
  private FusionKernels fusionKernels() {
    FusionKernels kernels = fusionKernels;
    if (kernels == null) {
      synchronized (this) {
        kernels = fusionKernels;
        if (kernels == null) {
          kernels = new FusionKernels(device);
          fusionKernels = kernels;
        }
      }
    }
    return kernels;
  }

  private IpcAllReduce requireIpc(Algorithm algorithm) {
    if (ipcAllReduce == null) {
      throw new IllegalStateException(
          "all-reduce " + algorithm.wireName() + " is unavailable: " + parts.peerReason());
    }
    return ipcAllReduce;
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
    GatherScatter.Variant variant = gatherVariant(algorithm, ALL_GATHER);
    requireCapacity(ALL_GATHER, "input", input, bytes(ALL_GATHER, count, dtype, 1));
    requireCapacity(
        ALL_GATHER, "output", output, bytes(ALL_GATHER, count, dtype, topology.worldSize()));
    if (variant != null) {
      gatherScatter.allGather(variant, input, output, bytes(ALL_GATHER, count, dtype, 1), stream);
      return;
    }
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
    GatherScatter.Variant variant = gatherVariant(algorithm, REDUCE_SCATTER);
    requireCapacity(
        REDUCE_SCATTER, "input", input, bytes(REDUCE_SCATTER, count, dtype, topology.worldSize()));
    requireCapacity(REDUCE_SCATTER, "output", output, bytes(REDUCE_SCATTER, count, dtype, 1));
    if (variant != null) {
      gatherScatter.reduceScatter(
          variant, input, output, bytes(REDUCE_SCATTER, count, dtype, 1), dtype, stream);
      return;
    }
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
    requireNccl(algorithm, BROADCAST);
    requireRank(BROADCAST, "root", root, topology.worldSize());
    long bytes = bytes(BROADCAST, count, dtype, 1);
    requireCapacity(BROADCAST, "input", input, bytes);
    requireCapacity(BROADCAST, "output", output, bytes);
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
    requireCapacity(SEND_RECEIVE, "send buffer", send, bytes);
    requireCapacity(SEND_RECEIVE, "receive buffer", receive, bytes);
    requireRank(SEND_RECEIVE, "sendTo", sendTo, topology.worldSize());
    requireRank(SEND_RECEIVE, "receiveFrom", receiveFrom, topology.worldSize());
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
    long bytes = bytes(COLLECTIVE_PERMUTE, count, dtype, 1);
    requireCapacity(COLLECTIVE_PERMUTE, "input", input, bytes);
    requireCapacity(
        COLLECTIVE_PERMUTE, "output", output, bytes(COLLECTIVE_PERMUTE, count, dtype, world));
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

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("communicator of rank " + topology.rank() + " is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      release(parts::close);
    }
  }

  /** Aborts NCCL's communicators rather than destroying them; see {@link Communicator}. */
  @Override
  public void closeAfterFailure() {
    if (closed.compareAndSet(false, true)) {
      release(parts::closeAfterFailure);
    }
  }

  /**
   * Closes the fusion kernels, then the parts by {@code releaseParts}, whatever the first does; the
   * first failure is thrown, the second suppressed in it.
   */
  private void release(AutoCloseable releaseParts) {
    RuntimeException failure =
        Closing.newestFirst(List.<AutoCloseable>of(releaseParts, this::closeFusionKernels));
    if (failure != null) {
      throw failure;
    }
  }

  private void closeFusionKernels() {
    FusionKernels kernels = fusionKernels;
    if (kernels != null) {
      kernels.close();
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
