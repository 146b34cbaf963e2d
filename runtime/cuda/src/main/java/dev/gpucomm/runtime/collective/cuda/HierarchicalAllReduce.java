package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.nccl.NcclComm;
import dev.gpucomm.runtime.nccl.NcclDataType;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hierarchical all-reduce for ranks spread over several pods: the pod's ranks reduce among
 * themselves over peer memory, each rank all-reduces its shard across pods with the ranks of the
 * same local rank (NCCL on a communicator split by local rank), and the pod's ranks gather the
 * shards over peer memory. Only the shards cross pods, so each rank sends 1/(ranks per pod) of the
 * message over the network instead of the whole of it.
 *
 * <p>The in-pod reduction is the two-shot kernel of {@link IpcAllReduce}, which leaves the pod's
 * sum on every rank of the pod (a reduce-scatter followed by an all-gather); its gather half moves
 * data the last step sends again, which a dedicated reduce-scatter kernel would save. The in-pod
 * gather is done by the copy engines: each rank copies its shard into every peer's gather area over
 * the peer mapping and raises a flag there with a stream memory write; the receiver waits for the
 * flag on its stream, clears it and copies the shards into its output. Streams write only
 * constants, so a call captured into a CUDA graph replays the same protocol. The next call's
 * two-shot kernel cannot finish on a rank before every peer has entered it, which is after the
 * peer's previous gather, so a gather area is never overwritten while it is read and a flag never
 * raised before it was cleared.
 *
 * <p>Every rank gets the same bits: the two-shot kernel sums in a fixed rank order, NCCL's
 * all-reduce leaves the same result on every rank of the split communicator, and the gather copies.
 * With one rank per pod the in-pod steps run on that rank alone (a copy, no peers to gather from)
 * and the cross-pod step is the whole message. Calls larger than the peer buffer run chunk by
 * chunk.
 */
public final class HierarchicalAllReduce implements AutoCloseable {
  /** Flag words (one per local rank) before the gather area, aligned for the copies. */
  private static final long FLAG_AREA_BYTES = 256;

  private final CudaDevice device;
  private final RankTopology topology;
  private final IpcAllReduce pod;
  private final NcclComm acrossPods;
  private final ShareableBuffer own;
  private final List<IpcHandle> openedPeers;
  private final long[] peerBases;
  private final long chunkBytes;
  private final CudaDriverApi api;
  private final AtomicBoolean closed = new AtomicBoolean();

  private HierarchicalAllReduce(
      CudaDevice device,
      RankTopology topology,
      IpcAllReduce pod,
      NcclComm acrossPods,
      ShareableBuffer own,
      List<IpcHandle> openedPeers,
      long[] peerBases,
      long chunkBytes) {
    this.device = device;
    this.topology = topology;
    this.pod = pod;
    this.acrossPods = acrossPods;
    this.own = own;
    this.openedPeers = openedPeers;
    this.peerBases = peerBases;
    this.chunkBytes = chunkBytes;
    this.api = CudaDriverApi.get();
  }

  /**
   * Allocates this rank's gather area, exchanges it with the pod's ranks under {@code keyPrefix}
   * and takes ownership of {@code pod} (the pod's IPC all-reduce) and {@code acrossPods} (the NCCL
   * communicator of the ranks with this local rank). Every rank of the pod calls this together.
   */
  static HierarchicalAllReduce create(
      CudaDevice device,
      KeyValueStore store,
      String keyPrefix,
      RankTopology topology,
      IpcAllReduce pod,
      NcclComm acrossPods,
      Duration timeout) {
    long chunkBytes = pod.maxBytes();
    ShareableBuffer own = device.allocateShareable(FLAG_AREA_BYTES + chunkBytes);
    List<IpcHandle> opened = new ArrayList<>();
    try {
      Stream stream = device.defaultStream();
      device.fill(own, 0, FLAG_AREA_BYTES, (byte) 0, stream);
      stream.synchronize();
      int localRank = topology.localRank();
      int localWorld = topology.localWorldSize();
      store.set(
          gatherHandleKey(keyPrefix, topology, localRank),
          own.handle().encode().getBytes(StandardCharsets.UTF_8));
      long[] bases = new long[localWorld];
      bases[localRank] = own.address();
      for (int peer = 0; peer < localWorld; peer++) {
        if (peer != localRank) {
          IpcHandle handle =
              IpcHandle.decode(
                  new String(
                      store.get(gatherHandleKey(keyPrefix, topology, peer), timeout),
                      StandardCharsets.UTF_8));
          bases[peer] = device.openPeer(handle).address();
          opened.add(handle);
        }
      }
      return new HierarchicalAllReduce(
          device, topology, pod, acrossPods, own, opened, bases, chunkBytes);
    } catch (RuntimeException e) {
      for (IpcHandle handle : opened) {
        device.releasePeer(handle);
      }
      own.close();
      throw e;
    }
  }

  /**
   * Store key of the gather area of local rank {@code localRank} of this rank's pod. Every pod has
   * the same local ranks and the job shares one store, so the key names the pod: without it a rank
   * could map a gather area of another pod, which on a host with several pods opens without error,
   * and then two senders raise one flag while another flag is never raised.
   */
  static String gatherHandleKey(String keyPrefix, RankTopology topology, int localRank) {
    return keyPrefix + "/node-" + topology.nodeIndex() + "/gather-handle/" + localRank;
  }

  /** The ranks of the communicator that crosses pods (one per pod). */
  public int podCount() {
    return acrossPods.ranks();
  }

  /**
   * All-reduces {@code count} elements of {@code input} into {@code output} over every rank of
   * every pod. The communicator has checked the buffers and that it is open.
   */
  void allReduce(DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream) {
    checkOpen();
    long elementBytes = dtype.bytes();
    long chunkElements = chunkBytes / elementBytes;
    for (long first = 0; first < count; first += chunkElements) {
      long elements = Math.min(chunkElements, count - first);
      long offset = first * elementBytes;
      long bytes = elements * elementBytes;
      DeviceBuffer chunkOut = output.slice(offset, bytes);
      pod.allReduce(
          HostPath.Route.TWO_SHOT, input.slice(offset, bytes), chunkOut, bytes, dtype, stream);
      allReduceShardAcrossPods(chunkOut.address(), elements, dtype, stream);
      gatherShards(chunkOut.address(), elements, elementBytes, stream);
    }
  }

  /** Elements of each local rank's shard of a chunk of {@code elements}; the last may be short. */
  static long shardElements(long elements, int localWorld) {
    return (elements + localWorld - 1) / localWorld;
  }

  /** Elements of local rank {@code shard}'s shard of a chunk (zero past the end of the chunk). */
  static long elementsOfShard(long elements, int localWorld, int shard) {
    long per = shardElements(elements, localWorld);
    return Math.max(0, Math.min(per, elements - shard * per));
  }

  private void allReduceShardAcrossPods(long chunkOut, long elements, DType dtype, Stream stream) {
    int localRank = topology.localRank();
    long per = shardElements(elements, topology.localWorldSize());
    long mine = elementsOfShard(elements, topology.localWorldSize(), localRank);
    long shard = chunkOut + localRank * per * dtype.bytes();
    // Every rank of the split communicator has the same shard size, so all of them call NCCL,
    // even with nothing to reduce.
    acrossPods.allReduce(
        shard, shard, mine, NcclDataType.of(dtype), NcclDataType.SUM, CudaDevice.rawStream(stream));
  }

  private void gatherShards(long chunkOut, long elements, long elementBytes, Stream stream) {
    int localWorld = topology.localWorldSize();
    if (localWorld == 1) {
      return;
    }
    int localRank = topology.localRank();
    MemorySegment raw = CudaDevice.rawStream(stream);
    long per = shardElements(elements, localWorld);
    long myOffset = localRank * per * elementBytes;
    long myBytes = elementsOfShard(elements, localWorld, localRank) * elementBytes;
    for (int step = 1; step < localWorld; step++) {
      int peer = (localRank + step) % localWorld;
      if (myBytes > 0) {
        check(
            api.copyAsync(
                peerBases[peer] + FLAG_AREA_BYTES + myOffset, chunkOut + myOffset, myBytes, raw),
            "cuMemcpyAsync");
      }
      check(
          api.streamWriteValue32(raw, peerBases[peer] + flagOffset(localRank), 1),
          "cuStreamWriteValue32");
    }
    long ownBase = peerBases[localRank];
    for (int step = 1; step < localWorld; step++) {
      int peer = (localRank + localWorld - step) % localWorld;
      check(api.streamWaitValue32Equal(raw, ownBase + flagOffset(peer), 1), "cuStreamWaitValue32");
      check(api.streamWriteValue32(raw, ownBase + flagOffset(peer), 0), "cuStreamWriteValue32");
      long peerOffset = peer * per * elementBytes;
      long peerBytes = elementsOfShard(elements, localWorld, peer) * elementBytes;
      if (peerBytes > 0) {
        check(
            api.copyAsync(
                chunkOut + peerOffset, ownBase + FLAG_AREA_BYTES + peerOffset, peerBytes, raw),
            "cuMemcpyAsync");
      }
    }
  }

  private static long flagOffset(int sender) {
    return (long) sender * Integer.BYTES;
  }

  private void check(int result, String call) {
    api.check(result, call, device.ordinal());
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(
          "hierarchical all-reduce of rank " + topology.rank() + " is closed");
    }
  }

  /**
   * Releases, after the last call has completed on every rank: the cross-pod communicator, the peer
   * mappings and this rank's gather area, then the pod's IPC all-reduce; keeps going when one
   * fails.
   */
  @Override
  public void close() {
    release(acrossPods::close);
  }

  /**
   * Releases as {@link #close()} does after a failure: the cross-pod communicator is aborted, not
   * destroyed, which would wait for operations the failed run may never finish.
   */
  void closeAfterFailure() {
    release(acrossPods::abort);
  }

  private void release(Runnable endAcrossPods) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    RuntimeException failure = null;
    try {
      endAcrossPods.run();
    } catch (RuntimeException e) {
      failure = e;
    }
    for (IpcHandle handle : openedPeers.reversed()) {
      try {
        device.releasePeer(handle);
      } catch (RuntimeException e) {
        failure = addTo(failure, e);
      }
    }
    try {
      own.close();
    } catch (RuntimeException e) {
      failure = addTo(failure, e);
    }
    try {
      pod.close();
    } catch (RuntimeException e) {
      failure = addTo(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException addTo(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }
}
