package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.collective.SwitchVote;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.nccl.NcclApi;
import dev.gpucomm.runtime.nccl.NcclComm;
import dev.gpucomm.runtime.nccl.NcclDataType;
import dev.gpucomm.runtime.nccl.NcclDebugLog;
import dev.gpucomm.runtime.nccl.NcclUniqueId;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.logging.Logger;

/**
 * What one rank's {@link CudaCommunicator} is built from, set up on every rank together: NCCL and
 * the IPC all-reduce (peer memory, its kernels and the host path), each with the reason when it is
 * off. It owns them: {@link #close} releases them in order, and a part that fails to set up
 * releases the ones before it.
 */
final class CudaCommunicatorParts implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(CudaCommunicatorParts.class.getName());

  private NcclComm nccl;
  private String ncclReason = "";
  private FabricObservation fabric = FabricObservation.unknown("NCCL is not used");
  private IpcAllReduce ipcAllReduce;
  private String peerReason = "";
  private GatherScatter gatherScatter;
  private String gatherReason = "";
  private FusedPeerAllReduce fusedPeer;
  private String fusedPeerReason = "";
  private NcclDebugLog ncclLog;
  private HierarchicalAllReduce hierarchical;
  private String hierarchicalReason = "the ranks share one node: use oneshot, twoshot or nccl";
  private FabricObservation acrossPodsFabric =
      FabricObservation.unknown("no cross-pod communicator");
  private PodLink podLink = PodLink.unknown("no cross-pod communicator");

  private CudaCommunicatorParts() {}

  /**
   * Sets up every part on this rank; the ranks meet in {@code store} under {@code prefix}.
   *
   * @throws IllegalStateException when neither NCCL nor peer memory can be used, or when the ranks
   *     differ on whether NCCL is usable or on GPUCOMM_PEER_MEMORY
   */
  static CudaCommunicatorParts open(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    CudaCommunicatorParts parts = new CudaCommunicatorParts();
    try {
      requireAlikeOnNode(store, prefix, topology, settings);
      parts.openNccl(device, store, prefix, topology, settings);
      parts.openIpcAllReduce(device, store, prefix, topology, settings);
      parts.openGatherScatter(device, store, prefix, topology, settings);
      parts.openFusedPeer(device, store, prefix, topology, settings);
      if (!topology.singleNode()) {
        parts.openHierarchical(device, store, prefix, topology, settings);
      }
    } catch (RuntimeException e) {
      parts.abandonAfter(e);
      throw e;
    }
    if (!parts.peerReason.isEmpty()) {
      LOG.warning(
          "rank " + topology.rank() + ": oneshot and twoshot disabled: " + parts.peerReason);
    }
    if (parts.nccl == null && parts.ipcAllReduce == null) {
      IllegalStateException none =
          new IllegalStateException(
              "no collective path on rank "
                  + topology.rank()
                  + ": "
                  + parts.ncclReason
                  + "; "
                  + parts.peerReason);
      parts.abandonAfter(none);
      throw none;
    }
    return parts;
  }

  /**
   * Peer memory is set up by every rank of a node together: a rank with it turned off would leave
   * the others waiting for its part until the rendezvous timeout.
   *
   * @throws IllegalStateException when the node's ranks differ on {@code GPUCOMM_PEER_MEMORY}
   */
  private static void requireAlikeOnNode(
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    SwitchVote.requireUnanimous(
        store,
        prefix + "/node-" + topology.nodeIndex() + "/peer-memory-on",
        settings.enabled(),
        "peer memory",
        settings.enabled() ? "on" : "turned off (GPUCOMM_PEER_MEMORY=off)",
        topology.rank(),
        topology.localWorldSize(),
        settings.rendezvousTimeout());
  }

  /**
   * NCCL from a unique id that global rank 0 puts in the store, unless it is off or missing on
   * every rank.
   *
   * @throws IllegalStateException when it is usable on some ranks only: those would wait in NCCL's
   *     setup for the others until the rendezvous timeout
   */
  private void openNccl(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    NcclApi api = usableNccl(settings);
    SwitchVote.requireUnanimous(
        store,
        prefix + "/nccl-usable",
        api != null,
        "NCCL",
        api != null ? "usable" : ncclReason,
        topology.rank(),
        topology.worldSize(),
        settings.rendezvousTimeout());
    if (api == null) {
      return;
    }
    NcclUniqueId id;
    if (topology.rank() == 0) {
      id = api.uniqueId();
      store.set(prefix + "/nccl-id", id.bytes());
    } else {
      id = new NcclUniqueId(store.get(prefix + "/nccl-id", settings.rendezvousTimeout()));
    }
    nccl =
        settings.maxBlocks() == CudaCommunicatorSettings.NO_BLOCK_LIMIT
            ? api.initRank(topology.worldSize(), id, topology.rank())
            : api.initRank(topology.worldSize(), id, topology.rank(), settings.maxBlocks());
    long logStart = ncclLog.length();
    fabric = connectAndObserve(device, nccl, ncclLog, logStart);
  }

  /** NCCL's API where it is turned on and its library loads; else null, with the reason kept. */
  private NcclApi usableNccl(CudaCommunicatorSettings settings) {
    if (!settings.ncclEnabled()) {
      ncclReason = "NCCL is turned off (GPUCOMM_NCCL=off)";
      return null;
    }
    ncclLog = NcclDebugLog.install(System.getenv());
    try {
      return NcclApi.get();
    } catch (IllegalStateException e) {
      ncclReason = e.getMessage();
      return null;
    }
  }

  /**
   * NCCL connects its ranks at their first collective: one tiny all-reduce (every rank is here
   * together) makes it choose its transports before any timed call, so that they can be recorded
   * and checked first.
   */
  private static FabricObservation connectAndObserve(
      CudaDevice device, NcclComm comm, NcclDebugLog ncclLog, long logStart) {
    try (DeviceBuffer probe = device.allocate(16);
        Stream stream = device.createStream()) {
      device.fill(probe, 0, 16, (byte) 0, stream);
      comm.allReduce(
          probe.address(),
          probe.address(),
          4,
          NcclDataType.FLOAT32,
          NcclDataType.SUM,
          CudaDevice.rawStream(stream));
      stream.synchronize();
    }
    return ncclLog.readFrom(logStart);
  }

  /** The transports NCCL chose for this rank's connections, or why they are unknown. */
  FabricObservation fabric() {
    return fabric;
  }

  /**
   * Peer memory among the ranks of this rank's node, the kernels over it and the host path beside
   * them, unless refused for this topology or the ranks cannot reach each other's memory (the
   * verdict's reason).
   */
  private void openIpcAllReduce(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    peerReason = peerMemoryRefusal(topology, settings);
    if (!peerReason.isEmpty()) {
      return;
    }
    PeerOpening opening = openPeerAllReduce(device, store, prefix, topology, settings);
    ipcAllReduce = opening.allReduce();
    peerReason = opening.reason();
  }

  /** The IPC all-reduce among the ranks of this rank's node, or why it could not be opened. */
  private record PeerOpening(IpcAllReduce allReduce, String reason) {}

  private static PeerOpening openPeerAllReduce(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    Optional<String> mismatch =
        IpcAllReduce.geometry(settings, device.multiprocessors())
            .agree(
                store,
                prefix + "/node-" + topology.nodeIndex() + "/allreduce",
                topology.localRank(),
                topology.localWorldSize(),
                settings.rendezvousTimeout());
    if (mismatch.isPresent()) {
      return new PeerOpening(null, mismatch.get());
    }
    PeerMemoryLayout layout =
        PeerMemoryLayout.of(
            topology.localWorldSize(),
            settings.maxBytes(),
            settings.lamportMaxBytes(),
            settings.lamport2MaxBytes());
    PeerMemory peerMemory =
        PeerMemory.create(
            device,
            store,
            prefix + "/node-" + topology.nodeIndex(),
            topology.localRank(),
            layout,
            settings);
    if (!peerMemory.verdict().available()) {
      String reason = peerMemory.verdict().reason();
      peerMemory.close();
      return new PeerOpening(null, reason);
    }
    Arena arena = Arena.ofShared();
    HostPath hostPath = null;
    try {
      AllReduceKernels kernels =
          new AllReduceKernels(
              device.module(AllReduceKernels.ptxResource(topology.localWorldSize())),
              arena,
              peerMemory.bases(),
              layout.kernelStruct(),
              peerMemory.controlAddress(),
              topology.localRank(),
              topology.localWorldSize(),
              settings.programmaticLaunch(),
              // Kernels limited to a share of the SMs run beside matmuls on other streams: the
              // most urgent priority puts their blocks ahead of queued matmul blocks.
              settings.maxBlocks() == CudaCommunicatorSettings.NO_BLOCK_LIMIT
                  ? OptionalInt.empty()
                  : OptionalInt.of(device.greatestPriority()));
      String hostPathReason = hostPathRefusal(topology, settings, layout.maxBytes());
      if (hostPathReason.isEmpty()) {
        try {
          hostPath = openHostPath(device, store, prefix, topology, settings, peerMemory);
        } catch (HostStaging.HostPathUnavailable e) {
          hostPathReason = e.getMessage();
          LOG.warning("rank " + topology.rank() + ": host path off: " + hostPathReason);
        }
      }
      return new PeerOpening(
          new IpcAllReduce(
              device, topology, settings, arena, peerMemory, kernels, hostPath, hostPathReason),
          "");
    } catch (RuntimeException e) {
      List<AutoCloseable> oldestFirst = new ArrayList<>(List.of(arena, peerMemory));
      if (hostPath != null) {
        oldestFirst.add(hostPath);
      }
      RuntimeException releaseFailure = Closing.newestFirst(oldestFirst);
      if (releaseFailure != null) {
        e.addSuppressed(releaseFailure);
      }
      throw e;
    }
  }

  /** The fused all-reduce kernels over their own peer memory, where the all-reduce's works. */
  private void openFusedPeer(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    if (ipcAllReduce == null) {
      fusedPeerReason = peerReason;
      return;
    }
    String[] reason = {""};
    fusedPeer =
        FusedPeerAllReduce.open(
            device,
            store,
            prefix + "/node-" + topology.nodeIndex() + "/fusion",
            topology,
            settings,
            reason);
    fusedPeerReason = reason[0];
  }

  /** All-gather and reduce-scatter over their own peer memory, where the all-reduce's works. */
  private void openGatherScatter(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    if (ipcAllReduce == null) {
      gatherReason = peerReason;
      return;
    }
    String[] reason = {""};
    gatherScatter =
        GatherScatter.open(
            device,
            store,
            prefix + "/node-" + topology.nodeIndex() + "/gather",
            topology,
            settings,
            reason);
    gatherReason = reason[0];
  }

  /**
   * The host path beside the kernels, where every rank of the node can set up its staging.
   *
   * @throws HostStaging.HostPathUnavailable when a rank cannot
   */
  private static HostPath openHostPath(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings,
      PeerMemory peerMemory) {
    HostPathSettings host = settings.hostPath();
    CudaDriverApi api = CudaDriverApi.get();
    HostStaging staging =
        HostStaging.create(
            host.folder(),
            host.stagingBytes(peerMemory.layout().maxBytes()),
            store,
            prefix + "/node-" + topology.nodeIndex() + "/host-path",
            topology.localRank(),
            topology.localWorldSize(),
            settings.rendezvousTimeout(),
            new HostStaging.Registrar() {
              @Override
              public void register(long address, long bytes) {
                api.registerHost(address, bytes, device.ordinal());
              }

              @Override
              public void unregister(long address) {
                api.unregisterHost(address);
              }
            });
    return new HostPath(device, staging, peerMemory.layout(), peerMemory.bases(), host);
  }

  /**
   * Hierarchical all-reduce for ranks on several nodes: NCCL split by local rank (every rank of the
   * job takes part in the split), peer memory among the ranks of this node, and the ranks' verdicts
   * compared through the store, so that either every rank can run it or none offers it.
   */
  private void openHierarchical(
      CudaDevice device,
      KeyValueStore store,
      String prefix,
      RankTopology topology,
      CudaCommunicatorSettings settings) {
    if (nccl == null) {
      hierarchicalReason = "its cross-pod step needs NCCL: " + ncclReason;
      podLink = PodLink.unknown("NCCL is not used: " + ncclReason);
      return;
    }
    long logStart = ncclLog.length();
    NcclComm acrossPods =
        nccl.split(
            topology.localRank(), topology.nodeIndex(), topology.nodeIndex(), topology.nodeCount());
    String ownReason = podPeerMemoryRefusal(topology, settings);
    IpcAllReduce pod = null;
    try {
      acrossPodsFabric = connectAndObserve(device, acrossPods, ncclLog, logStart);
      podLink =
          AcrossPodsLink.agree(
              store,
              prefix + "/pod-link",
              topology,
              AcrossPodsLink.of(acrossPodsFabric),
              settings.rendezvousTimeout());
      if (ownReason.isEmpty()) {
        PeerOpening opening = openPeerAllReduce(device, store, prefix + "/pod", topology, settings);
        pod = opening.allReduce();
        ownReason = opening.reason();
        if (pod != null) {
          pod.tryHostPath(store, prefix + "/pod", settings);
        }
      }
      String jobReason =
          HierarchicalVerdicts.agree(
              store, prefix + "/hierarchical", topology, ownReason, settings.rendezvousTimeout());
      if (jobReason.isEmpty()) {
        hierarchical =
            HierarchicalAllReduce.create(
                device,
                store,
                prefix + "/pod",
                topology,
                pod,
                acrossPods,
                settings.rendezvousTimeout());
        hierarchicalReason = "";
        return;
      }
      hierarchicalReason = jobReason;
    } catch (RuntimeException e) {
      closeQuietly(pod, e);
      // aborted, not destroyed: it ran the probe's all-reduce, which a failed peer may not finish
      closeQuietly(acrossPods == null ? null : acrossPods::abort, e);
      throw e;
    }
    if (pod != null) {
      pod.close();
    }
    acrossPods.close();
  }

  private static void closeQuietly(AutoCloseable closeable, RuntimeException failure) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Why peer memory among the ranks of one node is not tried for hierarchical; empty when it is.
   */
  static String podPeerMemoryRefusal(RankTopology topology, CudaCommunicatorSettings settings) {
    if (!settings.enabled()) {
      return "its in-pod steps need peer memory, which is turned off (GPUCOMM_PEER_MEMORY=off)";
    }
    return rankLimitRefusal(topology);
  }

  /** Why a node has more ranks than peer memory maps; empty when it has few enough. */
  private static String rankLimitRefusal(RankTopology topology) {
    if (topology.localWorldSize() > PeerMemoryLayout.MAX_RANKS) {
      return "peer memory supports at most "
          + PeerMemoryLayout.MAX_RANKS
          + " ranks per node, this node has "
          + topology.localWorldSize();
    }
    return "";
  }

  /** Hierarchical all-reduce; null when it is off ({@link #hierarchicalReason} says why). */
  HierarchicalAllReduce hierarchical() {
    return hierarchical;
  }

  String hierarchicalReason() {
    return hierarchicalReason;
  }

  /** The transports NCCL chose for the cross-pod communicator of hierarchical all-reduce. */
  FabricObservation acrossPodsFabric() {
    return acrossPodsFabric;
  }

  /** How pods reach each other, agreed by every rank; unknown on one pod or without NCCL. */
  PodLink podLink() {
    return podLink;
  }

  /** Why peer memory is not even tried for this topology; empty when it is. */
  static String peerMemoryRefusal(RankTopology topology, CudaCommunicatorSettings settings) {
    if (!settings.enabled()) {
      return "peer memory is turned off (GPUCOMM_PEER_MEMORY=off)";
    }
    if (!topology.singleNode()) {
      return "the ranks span "
          + topology.nodeCount()
          + " nodes and peer memory (CUDA IPC) only reaches the ranks of one node";
    }
    return rankLimitRefusal(topology);
  }

  /** Why the host path is not even tried; empty when it is. */
  static String hostPathRefusal(
      RankTopology topology, CudaCommunicatorSettings settings, long peerBufferBytes) {
    HostPathSettings host = settings.hostPath();
    int world = topology.localWorldSize();
    if (!host.enabled()) {
      return "turned off (GPUCOMM_HOST_PATH=off)";
    }
    if (!host.takes(HostPath.Route.ONE_SHOT, world)
        && !host.takes(HostPath.Route.TWO_SHOT, world)) {
      return "measured to pay on 2 and 4 ranks of a node, this node has "
          + world
          + " (GPUCOMM_HOST_PATH=on forces it)";
    }
    if (host.stagingBytes(peerBufferBytes) == 0) {
      return "the peer buffer ("
          + peerBufferBytes
          + " bytes) is below GPUCOMM_HOST_PATH_MIN_BYTES ("
          + host.minBytes()
          + ")";
    }
    return "";
  }

  NcclComm nccl() {
    return nccl;
  }

  String ncclReason() {
    return ncclReason;
  }

  /** The IPC all-reduce; null when peer memory is off ({@link #peerReason} says why). */
  IpcAllReduce ipcAllReduce() {
    return ipcAllReduce;
  }

  String peerReason() {
    return peerReason;
  }

  /** All-gather and reduce-scatter over peer memory; null when off ({@link #gatherReason}). */
  GatherScatter gatherScatter() {
    return gatherScatter;
  }

  String gatherReason() {
    return gatherReason;
  }

  /** The fused all-reduce's peer kernels; null when off ({@link #fusedPeerReason}). */
  FusedPeerAllReduce fusedPeer() {
    return fusedPeer;
  }

  String fusedPeerReason() {
    return fusedPeerReason;
  }

  /**
   * Releases every part after the communicator's last collective has completed on every rank:
   * hierarchical all-reduce, NCCL, then the IPC all-reduce.
   */
  @Override
  public void close() {
    release(false);
  }

  /**
   * Releases every part after a failure, whatever the peers do: NCCL's communicators are aborted,
   * not destroyed, which would wait for operations the failed run may never finish.
   */
  void closeAfterFailure() {
    release(true);
  }

  /**
   * Releases every part whatever the others do: the hierarchical all-reduce (its cross-pod
   * communicator split from NCCL's), NCCL, then the peer-memory parts; NCCL's communicators aborted
   * {@code afterFailure}, else destroyed. The first failure is thrown, the later ones suppressed in
   * it.
   */
  private void release(boolean afterFailure) {
    List<AutoCloseable> releasedLastFirst = new ArrayList<>();
    releasedLastFirst.add(this::closeIpcAllReduce);
    if (nccl != null) {
      AutoCloseable endNccl = afterFailure ? nccl::abort : nccl::close;
      releasedLastFirst.add(endNccl);
    }
    if (hierarchical != null) {
      AutoCloseable endHierarchical =
          afterFailure ? hierarchical::closeAfterFailure : hierarchical::close;
      releasedLastFirst.add(endHierarchical);
    }
    RuntimeException failure = Closing.newestFirst(releasedLastFirst);
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * {@link #closeAfterFailure()} when setting up failed with {@code setupFailure}, which keeps what
   * the release throws.
   */
  private void abandonAfter(RuntimeException setupFailure) {
    try {
      closeAfterFailure();
    } catch (RuntimeException | Error e) {
      setupFailure.addSuppressed(e);
    }
  }

  private void closeIpcAllReduce() {
    try {
      try {
        if (fusedPeer != null) {
          fusedPeer.close();
        }
      } finally {
        if (gatherScatter != null) {
          gatherScatter.close();
        }
      }
    } finally {
      if (ipcAllReduce != null) {
        ipcAllReduce.close();
      }
    }
  }
}
