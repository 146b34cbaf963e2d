package dev.gpucomm.runtime.collective.cpu;

import static dev.gpucomm.runtime.collective.BufferChecks.bytes;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.BufferChecks;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.FusedAllReduce;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.collective.OwnTimeMeter;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.device.cpu.CpuMemory;
import dev.gpucomm.runtime.device.cpu.CpuPeerBuffer;
import dev.gpucomm.runtime.device.cpu.CpuSharedBuffer;
import dev.gpucomm.runtime.device.cpu.CpuStream;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The collectives of one rank on the CPU backend, over shared memory with the other ranks of its
 * pod and TCP with the ranks of other pods: one-shot and two-shot all-reduce and direct (one-shot)
 * all-gather, reduce-scatter and broadcast through the staging areas (inside one pod only);
 * hierarchical all-reduce; ring all-reduce, all-gather, reduce-scatter and broadcast, send/receive
 * and collective permute through point-to-point channels, whose hops between pods go over TCP.
 *
 * <p>{@link Algorithm#NCCL} runs the ring: the ring is the CPU stand-in for NCCL, so a job that
 * lists {@code nccl} runs on every backend.
 *
 * <p>Each call checks its arguments on the calling thread (wrong sizes throw {@link
 * IllegalArgumentException} at once) and launches one kernel on the stream; the kernel runs on the
 * stream's worker, ordered with the copies and other kernels of that stream. The shared buffers,
 * flag offsets, scratch arrays and codecs are set up once, when the communicator is built. A
 * collective that fails (a peer that does not arrive within {@link CpuBackendConfig#waitTimeout()})
 * leaves the ranks out of step, so every later collective of this communicator fails at once.
 */
public final class CpuCommunicator implements Communicator, FusedAllReduce, OwnTimeMeter {
  private static final String KEY_ROOT = "gpucomm/cpu-communicator/";
  private static final int PROBE_MAGIC = 0x4743_0000;

  private static final String ONESHOT_ALL_REDUCE = "oneshot all-reduce";
  private static final String TWOSHOT_ALL_REDUCE = "twoshot all-reduce";
  private static final String RING_ALL_REDUCE = "ring all-reduce";
  private static final String HIERARCHICAL_ALL_REDUCE = "hierarchical all-reduce";
  private static final String FUSED_PREFIX = "residual+rmsnorm ";
  private static final String ONESHOT_ALL_GATHER = "oneshot all-gather";
  private static final String RING_ALL_GATHER = "ring all-gather";
  private static final String ONESHOT_REDUCE_SCATTER = "oneshot reduce-scatter";
  private static final String RING_REDUCE_SCATTER = "ring reduce-scatter";
  private static final String COPYENGINE_ALL_GATHER = "copyengine all-gather";
  private static final String COPYENGINE_REDUCE_SCATTER = "copyengine reduce-scatter";
  private static final String ONESHOT_BROADCAST = "oneshot broadcast";
  private static final String RING_BROADCAST = "ring broadcast";
  private static final String SEND_RECEIVE = "send/receive";
  private static final String COLLECTIVE_PERMUTE = "collective permute";

  private static final Set<Algorithm> ALL_REDUCE_ALGORITHMS =
      Collections.unmodifiableSet(
          EnumSet.of(Algorithm.ONESHOT, Algorithm.TWOSHOT, Algorithm.RING, Algorithm.HIERARCHICAL));
  private static final Set<Algorithm> OTHER_ALGORITHMS =
      Collections.unmodifiableSet(EnumSet.of(Algorithm.ONESHOT, Algorithm.RING));
  private static final Set<Algorithm> GATHER_ALGORITHMS =
      Collections.unmodifiableSet(
          EnumSet.of(Algorithm.ONESHOT, Algorithm.COPYENGINE, Algorithm.RING));
  private static final Set<Algorithm> MULTI_POD_ALL_REDUCE_ALGORITHMS =
      Collections.unmodifiableSet(EnumSet.of(Algorithm.RING, Algorithm.HIERARCHICAL));
  private static final Set<Algorithm> MULTI_POD_OTHER_ALGORITHMS =
      Collections.unmodifiableSet(EnumSet.of(Algorithm.RING));

  private final RankTopology topology;
  private final CpuDevice device;
  private final long stagingBytes;
  private final SharedWorkspace workspace;
  private final DirectAlgorithms direct;
  private final PendingEndBarrier pendingEnd;
  private final CopyPathAlgorithms copyPath;
  private final FusedDirectAlgorithms fused;
  private final RingAlgorithms ring;
  private final HierarchicalAllReduce hierarchical;
  private final PointToPoint pointToPoint;
  private final TcpPeerLinks links;
  private final SignalLayout layout;
  private final FlagWait wait;
  private final AtomicReference<String> running = new AtomicReference<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile RuntimeException failure;

  /** Written by the one thread that runs a collective at a time ({@link #runExclusively}). */
  private volatile long ownNanos;

  private CpuCommunicator(
      RankTopology topology,
      CpuDevice device,
      SharedWorkspace workspace,
      SignalLayout layout,
      FlagWait wait,
      TcpPeerLinks links) {
    CpuBackendConfig config = device.config();
    this.topology = topology;
    this.device = device;
    this.stagingBytes = config.stagingBytes();
    this.workspace = workspace;
    this.layout = layout;
    this.wait = wait;
    this.links = links;
    int rank = topology.rank();
    int worldSize = topology.worldSize();
    // Shared memory spans the pod: its flags and staging areas are indexed by local rank. The
    // direct algorithms run only when the pod is the whole world.
    int localRank = rank - topology.firstRankOfNode();
    int ranksPerPod = topology.localWorldSize();
    FlagBarrier startBarrier =
        new FlagBarrier(
            "start", SignalLayout.START_BARRIER, localRank, ranksPerPod, workspace, layout, wait);
    FlagBarrier middleBarrier =
        new FlagBarrier(
            "middle", SignalLayout.MIDDLE_BARRIER, localRank, ranksPerPod, workspace, layout, wait);
    FlagBarrier endBarrier =
        new FlagBarrier(
            "end", SignalLayout.END_BARRIER, localRank, ranksPerPod, workspace, layout, wait);
    // The copy-path and fused algorithms share the barriers: their epochs must advance with every
    // direct call.
    this.copyPath =
        new CopyPathAlgorithms(
            localRank, ranksPerPod, workspace, stagingBytes, startBarrier, endBarrier);
    this.pendingEnd = new PendingEndBarrier(endBarrier);
    this.direct =
        new DirectAlgorithms(
            localRank, ranksPerPod, workspace, startBarrier, middleBarrier, endBarrier, pendingEnd);
    this.fused =
        new FusedDirectAlgorithms(
            localRank, ranksPerPod, workspace, startBarrier, middleBarrier, endBarrier);
    PeerChannels insidePod =
        new PeerChannels(
            rank,
            topology.firstRankOfNode(),
            ranksPerPod,
            config.channelSlotBytes(),
            workspace,
            layout,
            wait);
    MessageChannels channels =
        links == null
            ? insidePod
            : new PodRoutedChannels(topology.firstRankOfNode(), ranksPerPod, insidePod, links);
    this.ring = new RingAlgorithms(rank, worldSize, channels);
    this.hierarchical = new HierarchicalAllReduce(rank, ranksPerPod, worldSize, channels);
    this.pointToPoint = new PointToPoint(rank, worldSize, channels);
  }

  /**
   * Builds the communicator of one rank: allocates its shared buffer (signal area + staging area),
   * zeroes the flags, publishes its handle through the store, maps the buffer of every peer of its
   * pod, and proves with one write per pair that they really share memory; when the job spans pods,
   * connects to every rank of the other pods over TCP at its pod's address (see {@link
   * PodAddress}). Every rank of the job must call this, in the same order for every communicator
   * they build.
   */
  public static CpuCommunicator create(
      CpuDevice device, KeyValueStore store, RankTopology topology) {
    return create(device, store, topology, PodAddress.of(System.getenv()));
  }

  /**
   * As {@link #create(CpuDevice, KeyValueStore, RankTopology)}, listening at {@code podAddress}.
   */
  public static CpuCommunicator create(
      CpuDevice device, KeyValueStore store, RankTopology topology, InetAddress podAddress) {
    CpuBackendConfig config = device.config();
    int rank = topology.rank();
    int ranksPerPod = topology.localWorldSize();
    int firstRankOfPod = topology.firstRankOfNode();
    int localRank = rank - firstRankOfPod;
    SignalLayout layout = new SignalLayout(ranksPerPod);
    long instance = store.add(KEY_ROOT + "rank-" + rank + "/communicators", 1);
    String namespace = KEY_ROOT + instance + "/";
    // Shared-memory handles are published per pod: a rank cannot even find another pod's buffers,
    // so traffic between pods takes the TCP links, also when every pod runs on one host.
    String podNamespace = namespace + "pod-" + topology.nodeIndex() + "/";

    CpuSharedBuffer own = device.allocateShareable(layout.signalBytes() + config.stagingBytes());
    CpuPeerBuffer[] peers = new CpuPeerBuffer[ranksPerPod];
    TcpPeerLinks links = null;
    try {
      // Flags start at zero before any peer can see them.
      own.segment().asSlice(0, layout.signalBytes()).fill((byte) 0);
      store.set(
          podNamespace + "rank-" + rank + "/buffer",
          own.handle().encode().getBytes(StandardCharsets.UTF_8));
      for (int peer = 0; peer < ranksPerPod; peer++) {
        if (peer != localRank) {
          byte[] handle =
              store.get(
                  podNamespace + "rank-" + (firstRankOfPod + peer) + "/buffer",
                  config.rendezvousTimeout());
          peers[peer] =
              device.openPeer(IpcHandle.decode(new String(handle, StandardCharsets.UTF_8)));
        }
      }
      SharedWorkspace workspace =
          new SharedWorkspace(localRank, own, peers, layout, config.stagingBytes());
      probePeerMemory(
          workspace, layout, localRank, firstRankOfPod, ranksPerPod, store, podNamespace, config);
      // Every peer has mapped this buffer now: drop its name so nothing outlives a killed process.
      own.unlink();
      FlagWait wait =
          new FlagWait(
              config.waitTimeout(),
              localRank,
              firstRankOfPod,
              workspace.signals(localRank),
              layout);
      if (!topology.singleNode()) {
        links =
            TcpPeerLinks.connect(topology, podAddress, store, namespace, instance, config, wait);
      }
      return new CpuCommunicator(topology, device, workspace, layout, wait, links);
    } catch (RuntimeException e) {
      if (links != null) {
        links.close();
      }
      for (CpuPeerBuffer peer : peers) {
        if (peer != null) {
          peer.close();
        }
      }
      own.close();
      throw e;
    }
  }

  private static void probePeerMemory(
      SharedWorkspace workspace,
      SignalLayout layout,
      int localRank,
      int firstRankOfPod,
      int ranksPerPod,
      KeyValueStore store,
      String podNamespace,
      CpuBackendConfig config) {
    for (int peer = 0; peer < ranksPerPod; peer++) {
      if (peer != localRank) {
        FlagWait.publish(
            workspace.signals(peer),
            layout.offset(SignalLayout.PROBE, localRank),
            PROBE_MAGIC | localRank);
      }
    }
    store.barrier(podNamespace + "probed", ranksPerPod, config.rendezvousTimeout());
    for (int peer = 0; peer < ranksPerPod; peer++) {
      if (peer != localRank) {
        int seen =
            FlagWait.read(workspace.signals(localRank), layout.offset(SignalLayout.PROBE, peer));
        if (seen != (PROBE_MAGIC | peer)) {
          throw new IllegalStateException(
              "rank %d does not see rank %d's writes to shared memory (its probe flag holds %08x): the ranks of a pod do not share %s"
                  .formatted(
                      firstRankOfPod + localRank,
                      firstRankOfPod + peer,
                      seen,
                      config.sharedMemoryDirectory()));
        }
      }
    }
  }

  @Override
  public RankTopology topology() {
    return topology;
  }

  /**
   * One-shot, two-shot, ring and hierarchical inside one pod; ring and hierarchical when the job
   * spans pods. {@link Algorithm#NCCL} is accepted too and runs the ring.
   */
  @Override
  public Set<Algorithm> allReduceAlgorithms() {
    return topology.singleNode() ? ALL_REDUCE_ALGORITHMS : MULTI_POD_ALL_REDUCE_ALGORITHMS;
  }

  /**
   * All-gather, reduce-scatter and broadcast run one-shot (direct reads of the staging areas) or
   * ring, and accept {@link Algorithm#NCCL} for the ring; all-gather and reduce-scatter also run
   * copyengine (pieces copied through the staging areas); collective permute takes no algorithm.
   */
  @Override
  public Set<Algorithm> algorithms(Collective collective) {
    return switch (collective) {
      case ALLREDUCE -> allReduceAlgorithms();
      case ALLGATHER, REDUCESCATTER ->
          topology.singleNode() ? GATHER_ALGORITHMS : MULTI_POD_OTHER_ALGORITHMS;
      case BROADCAST -> topology.singleNode() ? OTHER_ALGORITHMS : MULTI_POD_OTHER_ALGORITHMS;
      case COLLECTIVEPERMUTE -> Set.of();
    };
  }

  @Override
  public String unavailableReason() {
    return topology.singleNode()
        ? ""
        : "oneshot and twoshot read the peers' memory, which only the ranks of one pod share; this job spans %d pods of %d ranks"
            .formatted(topology.nodeCount(), topology.localWorldSize());
  }

  /**
   * Pods meet only over TCP: each pod's shared memory is its own, also when the pods share a host.
   */
  @Override
  public PodLink podLink() {
    return topology.singleNode()
        ? PodLink.unknown("the job is one pod")
        : PodLink.network("tcp between pods");
  }

  /**
   * The staging area per rank: one-shot and two-shot all-reduces larger than it run through it in
   * passes; the other direct collectives must fit in it.
   */
  @Override
  public long maxPeerMemoryBytes() {
    return stagingBytes;
  }

  /** Send/receive pairs this rank has completed, collective permutes included. */
  public long sendReceivePairs() {
    return pointToPoint.pairs();
  }

  @Override
  public void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    Algorithm resolved = resolve(Collective.ALLREDUCE, algorithm);
    String operation =
        switch (resolved) {
          case ONESHOT -> ONESHOT_ALL_REDUCE;
          case TWOSHOT -> TWOSHOT_ALL_REDUCE;
          case HIERARCHICAL -> HIERARCHICAL_ALL_REDUCE;
          default -> RING_ALL_REDUCE;
        };
    ElementCodec codec = ElementCodec.of(dtype);
    long bytes = bytes(operation, count, dtype, 1);
    MemorySegment in = segment(operation, "input", input, bytes);
    MemorySegment out = segment(operation, "output", output, bytes);
    if (resolved == Algorithm.ONESHOT || resolved == Algorithm.TWOSHOT) {
      // Larger calls run through the staging area in passes; it must hold one element (one in
      // each half for one-shot).
      requireStaging(operation, (resolved == Algorithm.ONESHOT ? 2L : 1L) * dtype.bytes());
    }
    if (resolved == Algorithm.ONESHOT) {
      // The one collective that needs no settled end barrier and only arrives at its own.
      postLeavingEndPending(
          stream,
          operation,
          count,
          () -> direct.oneShotAllReduce(operation, in, out, count, codec));
      return;
    }
    post(
        stream,
        operation,
        count,
        switch (resolved) {
          case TWOSHOT -> () -> direct.twoShotAllReduce(operation, in, out, count, codec);
          case HIERARCHICAL -> () -> hierarchical.allReduce(operation, in, out, count, codec);
          default -> () -> ring.allReduce(operation, in, out, count, codec);
        });
  }

  @Override
  public Set<Algorithm> fusedAllReduceAlgorithms() {
    return allReduceAlgorithms();
  }

  /** One-shot stages the input, two-shot the input and its output rows, in the staging buffer. */
  @Override
  public Optional<String> fusedRefusal(
      Algorithm algorithm, long tokens, DType dtype, NormEpilogue epilogue) {
    long count = tokens * epilogue.hiddenSize();
    long staged =
        switch (algorithm) {
          case ONESHOT -> count * dtype.bytes();
          case TWOSHOT -> count * (dtype.bytes() + (long) epilogue.outputElementBytes(dtype));
          default -> 0;
        };
    if (staged <= stagingBytes) {
      return Optional.empty();
    }
    return Optional.of(
        "%s stages %d bytes per rank, more than its staging buffer of %d bytes"
            .formatted(algorithm.wireName(), staged, stagingBytes));
  }

  /**
   * One-shot and two-shot fuse the epilogue into their reduction; ring, hierarchical and nccl (the
   * ring here) all-reduce into {@code residualOut} and then normalize it, the unfused sequence.
   */
  @Override
  public void allReduceResidualRmsNorm(
      Algorithm algorithm,
      FusedBuffers buffers,
      long tokens,
      DType dtype,
      NormEpilogue epilogue,
      Stream stream) {
    Algorithm resolved = resolve(Collective.ALLREDUCE, algorithm);
    String operation = FUSED_PREFIX + resolved.wireName() + " all-reduce";
    ElementCodec codec = ElementCodec.of(dtype);
    long count = tokens * epilogue.hiddenSize();
    long bytes = bytes(operation, count, dtype, 1);
    long outputBytes = count * epilogue.outputElementBytes(dtype);
    if (buffers.residualIn() == buffers.residualOut()) {
      throw new IllegalArgumentException(
          operation + ": residualOut must be a buffer other than residualIn");
    }
    CpuFusedCall call =
        new CpuFusedCall(
            segment(operation, "input", buffers.input(), bytes),
            segment(operation, "residualIn", buffers.residualIn(), bytes),
            segment(
                operation, "gamma", buffers.gamma(), (long) epilogue.hiddenSize() * dtype.bytes()),
            segment(operation, "residualOut", buffers.residualOut(), bytes),
            segment(operation, "output", buffers.output(), outputBytes),
            tokens,
            epilogue,
            codec);
    if (resolved == Algorithm.ONESHOT) {
      requireStaging(operation, bytes);
    } else if (resolved == Algorithm.TWOSHOT) {
      requireStaging(operation, bytes + outputBytes);
    }
    post(
        stream,
        operation,
        count,
        switch (resolved) {
          case ONESHOT -> () -> fused.oneShot(operation, call);
          case TWOSHOT -> () -> fused.twoShot(operation, call);
          case HIERARCHICAL ->
              () -> {
                hierarchical.allReduce(operation, call.input(), call.residualOut(), count, codec);
                fused.normalizeAfterAllReduce(call);
              };
          default ->
              () -> {
                ring.allReduce(operation, call.input(), call.residualOut(), count, codec);
                fused.normalizeAfterAllReduce(call);
              };
        });
  }

  @Override
  public void allGather(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    Algorithm resolved = resolve(Collective.ALLGATHER, algorithm);
    boolean oneShot = resolved == Algorithm.ONESHOT;
    String operation =
        switch (resolved) {
          case ONESHOT -> ONESHOT_ALL_GATHER;
          case COPYENGINE -> COPYENGINE_ALL_GATHER;
          default -> RING_ALL_GATHER;
        };
    long bytesPerRank = bytes(operation, count, dtype, 1);
    MemorySegment in = segment(operation, "input", input, bytesPerRank);
    MemorySegment out =
        segment(operation, "output", output, bytes(operation, count, dtype, topology.worldSize()));
    if (oneShot) {
      requireStaging(operation, bytesPerRank);
    }
    post(
        stream,
        operation,
        count,
        switch (resolved) {
          case ONESHOT -> () -> direct.allGather(operation, in, out, bytesPerRank);
          case COPYENGINE -> () -> copyPath.allGather(operation, in, out, bytesPerRank);
          default -> () -> ring.allGather(operation, in, out, bytesPerRank);
        });
  }

  @Override
  public void reduceScatter(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    Algorithm resolved = resolve(Collective.REDUCESCATTER, algorithm);
    boolean oneShot = resolved == Algorithm.ONESHOT;
    String operation =
        switch (resolved) {
          case ONESHOT -> ONESHOT_REDUCE_SCATTER;
          case COPYENGINE -> COPYENGINE_REDUCE_SCATTER;
          default -> RING_REDUCE_SCATTER;
        };
    ElementCodec codec = ElementCodec.of(dtype);
    long inputBytes = bytes(operation, count, dtype, topology.worldSize());
    MemorySegment in = segment(operation, "input", input, inputBytes);
    MemorySegment out = segment(operation, "output", output, bytes(operation, count, dtype, 1));
    if (oneShot) {
      requireStaging(operation, inputBytes);
    }
    post(
        stream,
        operation,
        count,
        switch (resolved) {
          case ONESHOT -> () -> direct.reduceScatter(operation, in, out, count, codec);
          case COPYENGINE -> () -> copyPath.reduceScatter(operation, in, out, count, codec);
          default -> () -> ring.reduceScatter(operation, in, out, count, codec);
        });
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
    boolean oneShot = resolve(Collective.BROADCAST, algorithm) == Algorithm.ONESHOT;
    String operation = oneShot ? ONESHOT_BROADCAST : RING_BROADCAST;
    requireRank(operation, "root", root);
    long bytes = bytes(operation, count, dtype, 1);
    MemorySegment in = segment(operation, "input", input, topology.rank() == root ? bytes : 0);
    MemorySegment out = segment(operation, "output", output, bytes);
    if (oneShot) {
      requireStaging(operation, bytes);
    }
    post(
        stream,
        operation,
        count,
        oneShot
            ? () -> direct.broadcast(operation, in, out, bytes, root)
            : () -> ring.broadcast(operation, in, out, bytes, root));
  }

  @Override
  public void sendReceive(
      DeviceBuffer send,
      int sendTo,
      DeviceBuffer receive,
      int receiveFrom,
      long bytes,
      Stream stream) {
    requireRank(SEND_RECEIVE, "sendTo", sendTo);
    requireRank(SEND_RECEIVE, "receiveFrom", receiveFrom);
    int rank = topology.rank();
    if ((sendTo == rank) != (receiveFrom == rank)) {
      throw new IllegalArgumentException(
          "%s on rank %d: sendTo (%d) and receiveFrom (%d) must both be this rank (a local copy) or both be peers"
              .formatted(SEND_RECEIVE, rank, sendTo, receiveFrom));
    }
    if (bytes < 0) {
      throw new IllegalArgumentException(SEND_RECEIVE + ": bytes must be >= 0, got " + bytes);
    }
    MemorySegment out = segment(SEND_RECEIVE, "send buffer", send, bytes);
    MemorySegment in = segment(SEND_RECEIVE, "receive buffer", receive, bytes);
    post(
        stream,
        SEND_RECEIVE,
        bytes,
        () -> pointToPoint.sendReceive(SEND_RECEIVE, out, 0, sendTo, in, 0, receiveFrom, bytes));
  }

  @Override
  public void collectivePermute(
      DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream) {
    long bytesPerRank = bytes(COLLECTIVE_PERMUTE, count, dtype, 1);
    MemorySegment in = segment(COLLECTIVE_PERMUTE, "input", input, bytesPerRank);
    MemorySegment out =
        segment(
            COLLECTIVE_PERMUTE,
            "output",
            output,
            bytes(COLLECTIVE_PERMUTE, count, dtype, topology.worldSize()));
    post(
        stream,
        COLLECTIVE_PERMUTE,
        count,
        () -> pointToPoint.collectivePermute(COLLECTIVE_PERMUTE, in, out, bytesPerRank));
  }

  /** The algorithm that runs for {@code requested}: NCCL is the ring; auto is refused. */
  private Algorithm resolve(Collective collective, Algorithm requested) {
    if (requested == null) {
      throw new IllegalArgumentException(collective + ": algorithm must not be null");
    }
    if (requested == Algorithm.AUTO) {
      throw new IllegalArgumentException(
          collective + ": algorithm auto must be resolved by a heuristic before the call");
    }
    if (requested == Algorithm.NCCL) {
      return Algorithm.RING; // the CPU stand-in for NCCL
    }
    Set<Algorithm> supported = algorithms(collective);
    if (!supported.contains(requested)) {
      String why = topology.singleNode() ? "" : " (" + unavailableReason() + ")";
      throw new IllegalArgumentException(
          "%s does not support algorithm %s on the cpu backend%s; use one of %s or nccl"
              .formatted(collective, requested, why, supported));
    }
    return requested;
  }

  private static MemorySegment segment(
      String operation, String role, DeviceBuffer buffer, long bytes) {
    MemorySegment segment = CpuMemory.segmentOf(buffer);
    BufferChecks.requireCapacity(operation, role, segment.byteSize(), bytes);
    return segment;
  }

  private void requireStaging(String operation, long bytes) {
    if (bytes > stagingBytes) {
      throw new IllegalArgumentException(
          "%s: %d bytes exceed the staging buffer of %d bytes per rank (use ring or nccl, or a larger stagingBytes)"
              .formatted(operation, bytes, stagingBytes));
    }
  }

  private void requireRank(String operation, String role, int peer) {
    BufferChecks.requireRank(operation, role, peer, topology.worldSize());
  }

  private CpuStream prepare(Stream stream) {
    if (closed.get()) {
      throw new IllegalStateException("the communicator of rank " + topology.rank() + " is closed");
    }
    RuntimeException earlier = failure;
    if (earlier != null) {
      throw new IllegalStateException(refusal(earlier), earlier);
    }
    return device.streamOf(stream);
  }

  /**
   * Checks that the communicator can still run collectives, then queues {@code collective} on the
   * stream, unless it has nothing to move ({@code amount}, its elements or bytes, is zero). The
   * collective first waits until the peers have finished reading this rank's staging area in the
   * one-shot all-reduces before it.
   */
  private void post(Stream stream, String operation, long amount, Runnable collective) {
    postLeavingEndPending(
        stream,
        operation,
        amount,
        () -> {
          pendingEnd.settle(operation);
          collective.run();
        });
  }

  /** {@link #post} for the one-shot all-reduce, which works beside an unsettled end barrier. */
  private void postLeavingEndPending(
      Stream stream, String operation, long amount, Runnable collective) {
    CpuStream cpuStream = prepare(stream);
    if (amount == 0) {
      return;
    }
    cpuStream.launch(operation, () -> runExclusively(operation, collective));
  }

  /**
   * Runs a collective on the stream's worker. Two collectives of one communicator must never
   * overlap (they share the signal and staging areas), and after a failure the ranks are out of
   * step, so both are refused with a message that says why. The time the collective ran outside its
   * waits for peers adds to {@link #ownNanos()}.
   */
  private void runExclusively(String operation, Runnable collective) {
    RuntimeException earlier = failure;
    if (earlier != null) {
      throw new IllegalStateException(refusal(earlier), earlier);
    }
    String other = running.compareAndExchange(null, operation);
    if (other != null) {
      IllegalStateException overlap =
          new IllegalStateException(
              "%s on rank %d started while %s was still running on the same communicator: order the collectives of one communicator on one stream"
                  .formatted(operation, topology.rank(), other));
      abort(overlap);
      throw overlap;
    }
    long waitedBefore = wait.waitedNanos();
    long started = System.nanoTime();
    try {
      collective.run();
      ownNanos += System.nanoTime() - started - (wait.waitedNanos() - waitedBefore);
    } catch (RuntimeException | Error e) {
      abort(e);
      throw e;
    } finally {
      running.compareAndSet(operation, null);
    }
  }

  @Override
  public long ownNanos() {
    return ownNanos;
  }

  /**
   * Marks the communicator failed; when the failure started on this rank, tells every peer through
   * its abort flag, so that collectives waiting here or on the peers give up at once instead of at
   * their timeout.
   */
  private void abort(Throwable cause) {
    if (failure == null) {
      failure =
          cause instanceof RuntimeException runtime
              ? runtime
              : new IllegalStateException(cause.toString(), cause);
    }
    wait.abortLocally("another collective of this rank failed: " + cause.getMessage());
    if (cause instanceof PeerTimeoutException) {
      // A missing rank makes every rank that waits for it time out naming it, which is the more
      // useful message.
      return;
    }
    if (links != null) {
      // Peers in other pods that wait for this rank see their connection end and give up at once.
      links.close();
    }
    if (cause instanceof PeerFailedException) {
      // Started elsewhere: a failed rank has raised its flag already.
      return;
    }
    tellPeers(FlagWait.ABORT_FAILED);
  }

  /** Raises this rank's abort flag in every peer's signal area; best effort. */
  private void tellPeers(int abortFlag) {
    int localRank = topology.rank() - topology.firstRankOfNode();
    long flag = layout.offset(SignalLayout.ABORT, localRank);
    for (int peer = 0; peer < topology.localWorldSize(); peer++) {
      if (peer != localRank) {
        try {
          FlagWait.publish(workspace.signals(peer), flag, abortFlag);
        } catch (IllegalStateException closed) {
          // The mapping is gone (the device closed): there is no one left to tell through it.
        }
      }
    }
  }

  private String refusal(RuntimeException earlier) {
    return "the communicator of rank %d failed earlier and cannot run more collectives: %s"
        .formatted(topology.rank(), earlier.getMessage());
  }

  /**
   * Unmaps the peers' buffers and frees this rank's. Collectives of this rank still waiting give
   * up, and peers that wait for this rank give up too, saying that it left; a peer never waits for
   * this rank once this rank's collectives have completed, so closing after the last one is safe.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      wait.abortLocally("the communicator was closed");
      tellPeers(FlagWait.ABORT_CLOSED);
      if (links != null) {
        links.close();
      }
      workspace.close();
      copyPath.close();
    }
  }

  @Override
  public String toString() {
    return "cpu communicator of rank " + topology.rank() + " of " + topology.worldSize();
  }
}
