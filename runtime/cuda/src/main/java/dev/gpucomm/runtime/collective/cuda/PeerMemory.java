package dev.gpucomm.runtime.collective.cuda;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.IpcHandle;
import dev.gpucomm.runtime.device.ShareableBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.CudaModule;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One communicator's peer memory: this rank's IPC allocation (signal flags, receive areas, scratch,
 * Lamport slots), its local control block, and the mappings of the node's other ranks' allocations,
 * exchanged once through the store and checked with one real write and read per peer pair.
 */
final class PeerMemory implements AutoCloseable {
  /**
   * Covers {@code struct Control} of allreduce.cu (10,880 bytes) and {@code struct FusionControl}
   * of fusion.cu (14,784 bytes, checked there): per-block epochs and sizes.
   */
  static final int CONTROL_BYTES = 16384;

  private static final int BLOCKS = PeerMemoryLayout.MAX_BLOCKS;
  // struct Control: oneshotEpoch, twoshotEpoch, lamportEpoch, lamport2Epoch (uint32 per block),
  // then lamportVectors and lamport2Vectors (3 long long per block), then streamEpoch (uint32 per
  // block).
  private static final long LAMPORT_EPOCH_OFFSET = 2L * BLOCKS * Integer.BYTES;
  private static final long LAMPORT_EPOCH_BYTES = 2L * BLOCKS * Integer.BYTES;
  private static final long LAMPORT_VECTORS_OFFSET = 4L * BLOCKS * Integer.BYTES;
  private static final long LAMPORT_VECTORS_BYTES = 2L * 3 * BLOCKS * Long.BYTES;

  private final CudaDevice device;
  private final PeerMemoryLayout layout;
  private final ShareableBuffer local;
  private final DeviceBuffer control;
  private final List<IpcHandle> openedPeers;
  private final long[] bases;
  private final PeerAccessVerdict verdict;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PeerMemory(
      CudaDevice device,
      PeerMemoryLayout layout,
      ShareableBuffer local,
      DeviceBuffer control,
      List<IpcHandle> openedPeers,
      long[] bases,
      PeerAccessVerdict verdict) {
    this.device = device;
    this.layout = layout;
    this.local = local;
    this.control = control;
    this.openedPeers = openedPeers;
    this.bases = bases;
    this.verdict = verdict;
  }

  /**
   * Allocates and initializes this rank's peer memory, exchanges handles with the node's ranks,
   * maps theirs and checks that writes and reads across every pair work. Every rank of the node
   * must call this together; all of them reach the same verdict.
   */
  static PeerMemory create(
      CudaDevice device,
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      PeerMemoryLayout layout,
      CudaCommunicatorSettings settings) {
    int world = layout.world();
    Stream stream = device.defaultStream();
    ShareableBuffer local = device.allocateShareable(layout.totalBytes());
    DeviceBuffer control;
    try {
      control = device.allocate(CONTROL_BYTES);
    } catch (RuntimeException e) {
      local.close();
      throw e;
    }
    List<IpcHandle> opened = new ArrayList<>();
    long[] bases = new long[PeerMemoryLayout.MAX_RANKS];
    String failure = null;
    try {
      // Flags and control words start at zero and Lamport slots at the sentinel, everywhere,
      // before any peer can see this memory.
      device.fill(local, 0, layout.flagBytes(), (byte) 0, stream);
      device.fillWords(
          local,
          layout.lamportOffset(),
          layout.lamportBytes() / 4,
          PeerMemoryLayout.LAMPORT_SENTINEL,
          stream);
      device.fill(control, 0, CONTROL_BYTES, (byte) 0, stream);
      stream.synchronize();
      bases[localRank] = local.address();
      store.set(
          keyPrefix + "/handle/" + localRank,
          local.handle().encode().getBytes(StandardCharsets.UTF_8));
      for (int peer = 0; peer < world; peer++) {
        if (peer == localRank) {
          continue;
        }
        IpcHandle handle =
            IpcHandle.decode(
                new String(
                    store.get(keyPrefix + "/handle/" + peer, settings.rendezvousTimeout()),
                    StandardCharsets.UTF_8));
        if (failure == null) {
          try {
            bases[peer] = device.openPeer(handle).address();
            opened.add(handle);
          } catch (RuntimeException e) {
            failure = "opening local rank " + peer + "'s memory: " + e.getMessage();
          }
        }
      }
      failure =
          check(device, stream, store, keyPrefix, localRank, layout, bases, failure, settings);
    } catch (RuntimeException e) {
      control.close();
      local.close();
      for (IpcHandle handle : opened) {
        device.releasePeer(handle);
      }
      throw e;
    }
    PeerAccessVerdict own =
        failure == null ? PeerAccessVerdict.usable() : PeerAccessVerdict.unavailable(failure);
    PeerAccessVerdict agreed =
        PeerAccessVerdict.agree(
            store, keyPrefix, localRank, world, own, settings.rendezvousTimeout());
    return new PeerMemory(device, layout, local, control, opened, bases, agreed);
  }

  /**
   * Each rank writes a word into every peer's check area through the mapping; after all have
   * written, each reads back what the peers wrote into its own area and, remotely, what it wrote
   * into theirs. Returns the first problem seen, or null. Every rank takes part in the store
   * barrier even after a failure, so that nobody waits forever.
   */
  private static String check(
      CudaDevice device,
      Stream stream,
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      PeerMemoryLayout layout,
      long[] bases,
      String failure,
      CudaCommunicatorSettings settings) {
    int world = layout.world();
    CudaModule module = device.module(AllReduceKernels.ptxResource(world));
    long[] layoutStruct = layout.kernelStruct();
    try (Arena arena = Arena.ofConfined()) {
      if (failure == null) {
        try {
          KernelArguments write =
              structArguments(arena, bases, layoutStruct, localRank, world, false);
          module.kernel("gpucomm_peer_check_write").launch(1, 32, stream, write);
          stream.synchronize();
        } catch (RuntimeException e) {
          failure = "writing into peer memory: " + e.getMessage();
        }
      }
      store.barrier(keyPrefix + "/check-written", world, settings.rendezvousTimeout());
      if (failure == null) {
        DeviceBuffer result = device.allocate(4L * 4 * PeerMemoryLayout.MAX_RANKS);
        try {
          KernelArguments read =
              structArguments(arena, bases, layoutStruct, localRank, world, true);
          read.setLong(4, result.address());
          CudaKernel kernel = module.kernel("gpucomm_peer_check_read");
          kernel.launch(1, 32, stream, read);
          MemorySegment words = arena.allocate(result.byteSize(), 16);
          device.download(result, 0, words, stream);
          failure = compare(words, localRank, world);
        } catch (RuntimeException e) {
          failure = "reading peer memory: " + e.getMessage();
        } finally {
          result.close();
        }
      }
    }
    return failure;
  }

  private static KernelArguments structArguments(
      Arena arena, long[] bases, long[] layoutStruct, int rank, int world, boolean withResult) {
    KernelArguments args =
        withResult
            ? new KernelArguments(
                arena, 8L * PeerMemoryLayout.MAX_RANKS, 8L * layoutStruct.length, 4, 4, 8)
            : new KernelArguments(
                arena, 8L * PeerMemoryLayout.MAX_RANKS, 8L * layoutStruct.length, 4, 4);
    for (int i = 0; i < PeerMemoryLayout.MAX_RANKS; i++) {
      args.setStructLong(0, i, bases[i]);
    }
    for (int i = 0; i < layoutStruct.length; i++) {
      args.setStructLong(1, i, layoutStruct[i]);
    }
    return args.setInt(2, rank).setInt(3, world);
  }

  /** Compares what the read kernel saw with what it expected; null when all matched. */
  static String compare(MemorySegment words, int rank, int world) {
    HexFormat hex = HexFormat.of();
    int expectedBase = 2 * PeerMemoryLayout.MAX_RANKS;
    for (int peer = 0; peer < world; peer++) {
      if (peer == rank) {
        continue;
      }
      int fromPeer = words.getAtIndex(JAVA_INT, 2L * peer);
      int backFromPeer = words.getAtIndex(JAVA_INT, 2L * peer + 1);
      int expectFromPeer = words.getAtIndex(JAVA_INT, expectedBase + 2L * peer);
      int expectBack = words.getAtIndex(JAVA_INT, expectedBase + 2L * peer + 1);
      if (fromPeer != expectFromPeer) {
        return "the word local rank "
            + peer
            + " wrote into this rank's memory reads 0x"
            + hex.toHexDigits(fromPeer)
            + ", expected 0x"
            + hex.toHexDigits(expectFromPeer);
      }
      if (backFromPeer != expectBack) {
        return "the word this rank wrote into local rank "
            + peer
            + "'s memory reads back 0x"
            + hex.toHexDigits(backFromPeer)
            + ", expected 0x"
            + hex.toHexDigits(expectBack);
      }
    }
    return null;
  }

  PeerAccessVerdict verdict() {
    return verdict;
  }

  PeerMemoryLayout layout() {
    return layout;
  }

  /** Base address of every local rank's allocation as mapped here (this rank's own included). */
  long[] bases() {
    return bases.clone();
  }

  long controlAddress() {
    return control.address();
  }

  /**
   * Refills both Lamport kernels' slots with the sentinel and restarts their epochs, in stream
   * order; needed when the Lamport grid changes (slots follow per-block epochs).
   */
  void resetLamport(Stream stream) {
    device.fillWords(
        local,
        layout.lamportOffset(),
        layout.lamportBytes() / 4,
        PeerMemoryLayout.LAMPORT_SENTINEL,
        stream);
    device.fill(control, LAMPORT_EPOCH_OFFSET, LAMPORT_EPOCH_BYTES, (byte) 0, stream);
    device.fill(control, LAMPORT_VECTORS_OFFSET, LAMPORT_VECTORS_BYTES, (byte) 0, stream);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        for (IpcHandle handle : openedPeers) {
          device.releasePeer(handle);
        }
      } finally {
        control.close();
        local.close();
      }
    }
  }
}
