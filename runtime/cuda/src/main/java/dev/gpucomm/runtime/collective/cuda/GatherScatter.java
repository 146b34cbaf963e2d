package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.CudaModule;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * gpucomm's own all-gather and reduce-scatter over CUDA IPC peer memory among the ranks of one
 * node, in two variants: {@link Variant#KERNEL} pushes the bytes with kernel threads, {@link
 * Variant#COPY_ENGINE} with the GPU's copy engines (tiny kernels only meet the peers and, for
 * reduce-scatter, sum the shards).
 *
 * <p>Each rank pushes its bytes into the peers' receive slots in a peer-memory allocation of its
 * own (gather.cu describes the protocol), so the caller's buffers need no registration and a call
 * captured into a CUDA graph replays unchanged. The kernel variant runs every call as one launch:
 * the smallest calls (up to {@code GPUCOMM_GATHER_LL_MAX_BYTES}) with the LL kernels, whose data
 * carries its own flags, small ones in a single pass over slots of alternating parity, larger ones
 * in pipelined rounds whose local copy-out overlaps the next round's push. The copy-engine variant
 * ({@link CopyEngineGather}) streams pieces through the parts of the slots, its pushes overlapping
 * the copy-out (or sum) of the pieces before. Kernel parameters, streams and events are prepared
 * once; a call writes addresses and sizes and launches. Calls must be ordered with respect to each
 * other (one signal area).
 */
public final class GatherScatter implements AutoCloseable {
  /** Which engine moves the bytes. */
  public enum Variant {
    KERNEL,
    COPY_ENGINE
  }

  /** The largest receive slot (per sender); a kernel call above it runs in rounds. */
  static final long MAX_SLOT_BYTES = 32L << 20;

  static final String PTX = "ptx/gather.ptx";

  private static final String COPY_ENGINE_FAILED = "an earlier copy-engine call failed part-way";
  private static final String KERNEL_LAUNCH_FAILED = "an earlier kernel launch failed";

  // Every rank launches the same grid for the same call, so block b of every rank covers the same
  // bytes. Every kernel of the kernel variant runs one grid (`blocks`): the flag kernels share
  // per-block epochs that must stay in step (gather.cu says why).

  private static final int LAYOUT_STRUCT_BYTES = 9 * Long.BYTES;
  // GatherLayout.roundBytes, which the two collectives set apart
  private static final int ROUND_BYTES_FIELD = 4;
  private static final int THREADS = 512;
  // struct GatherControl: two uint32 per-block epoch arrays of 160 blocks and one word
  private static final int CONTROL_BYTES = 2048;
  private static final int ALIGNMENT = 16;

  // Parameters of the push kernels: input, output, bytes, stride, peers, layout, control, rank,
  // world.
  private static final int IN = 0;
  private static final int OUT = 1;
  private static final int BYTES = 2;
  private static final int STRIDE = 3;

  private final CudaDevice device;
  private final int rank;
  private final int world;
  private final PeerMemory memory;
  private final DeviceBuffer control;
  private final Arena arena;
  private final long slotBytes;
  private final long oneshotMaxBytes;
  private final long llMaxBytes;
  private final int blocks;
  private final CudaKernel allGatherLl;
  private final CudaKernel allGatherOneshot;
  private final CudaKernel allGatherPipelined;
  private final KernelArguments allGatherArgs;
  private final CudaKernel[] reduceScatterLl;
  private final CudaKernel[] reduceScatterOneshot;
  private final CudaKernel[] reduceScatterPipelined;
  private final KernelArguments[] reduceScatterArgs;
  private final CopyEngineGather copyEngine;
  private final AtomicBoolean closed = new AtomicBoolean();
  // A copy-engine call that failed leaves tokens raised in the memory both variants use; a kernel
  // that failed to launch never advanced this rank's epochs, which its peers' did.
  private final EarlierFailure earlierFailure = new EarlierFailure();

  private GatherScatter(
      CudaDevice device,
      RankTopology topology,
      PeerMemory memory,
      DeviceBuffer control,
      Arena arena,
      CudaCommunicatorSettings settings) {
    this.device = device;
    this.rank = topology.localRank();
    this.world = topology.localWorldSize();
    this.memory = memory;
    this.control = control;
    this.arena = arena;
    PeerMemoryLayout layout = memory.layout();
    // The receive area is [2 parity][world][stride] for the all-reduce; here it is one slot of two
    // strides per sender.
    this.slotBytes = 2 * layout.oneshotRankStride();
    long[] bases = memory.bases();
    // The two-shot receive area ([2 parity][world][stride]) holds the single-pass kernels'
    // slots of alternating parity.
    long paritySlotBytes = layout.twoshotRankStride();
    this.oneshotMaxBytes = Math.min(settings.gatherSinglePassMaxBytes(), paritySlotBytes);
    this.llMaxBytes = settings.gatherLlMaxBytes();
    this.blocks = blocks(settings, device.multiprocessors());
    long[] gatherLayout = {
      layout.oneshotFlagsOffset(),
      layout.twoshotFlagsOffset(),
      layout.oneshotRecvOffset(),
      slotBytes,
      Math.min(settings.allGatherRoundBytes(), slotBytes / 2),
      layout.twoshotRecvOffset(),
      paritySlotBytes,
      // The LL slots: two of the three Lamport slots of the layout, sized by llSlotBytes below.
      layout.lamportOffset(),
      layout.lamportRankStride()
    };
    CudaModule module = device.module(PTX);
    allGatherLl = module.kernel("gpucomm_allgather_ll");
    allGatherOneshot = module.kernel("gpucomm_allgather_oneshot");
    // The pipelined kernels overlap each round's copy-out with the next round's push unless the
    // settings ask for the first kernels, which take turns (there to compare).
    String pipelined = settings.gatherOverlap() ? "pipelined" : "pipelined_serial";
    allGatherPipelined = module.kernel("gpucomm_allgather_" + pipelined);
    allGatherArgs = pushArguments(bases, gatherLayout);
    long[] reduceScatterLayout = gatherLayout.clone();
    reduceScatterLayout[ROUND_BYTES_FIELD] =
        Math.min(settings.reduceScatterRoundBytes(), slotBytes / 2);
    KernelArguments barrierArgs =
        prepared(
            new KernelArguments(arena, 64, LAYOUT_STRUCT_BYTES, 8, 4, 4), 0, bases, gatherLayout);
    DType[] dtypes = DType.values();
    reduceScatterLl = new CudaKernel[dtypes.length];
    reduceScatterOneshot = new CudaKernel[dtypes.length];
    reduceScatterPipelined = new CudaKernel[dtypes.length];
    reduceScatterArgs = new KernelArguments[dtypes.length];
    CudaKernel[] copyEngineSum = new CudaKernel[dtypes.length];
    for (DType dtype : dtypes) {
      int i = dtype.ordinal();
      reduceScatterLl[i] = module.kernel("gpucomm_reducescatter_ll_" + dtype.wireName());
      reduceScatterOneshot[i] = module.kernel("gpucomm_reducescatter_oneshot_" + dtype.wireName());
      reduceScatterPipelined[i] =
          module.kernel("gpucomm_reducescatter_" + pipelined + "_" + dtype.wireName());
      reduceScatterArgs[i] = pushArguments(bases, reduceScatterLayout);
      copyEngineSum[i] = module.kernel("gpucomm_ce_sum_" + dtype.wireName());
    }
    copyEngine =
        new CopyEngineGather(
            device,
            arena,
            rank,
            world,
            bases,
            layout,
            slotBytes,
            settings.copyEnginePieceBytes(),
            module.kernel("gpucomm_ce_start"),
            barrierArgs,
            copyEngineSum,
            CopyEngineGather.sumBlocks(settings, device.multiprocessors()));
  }

  private KernelArguments pushArguments(long[] bases, long[] gatherLayout) {
    return prepared(
        new KernelArguments(arena, 8, 8, 8, 8, 64, LAYOUT_STRUCT_BYTES, 8, 4, 4),
        4,
        bases,
        gatherLayout);
  }

  /** Fills peers, layout, control, rank and world, which start at parameter {@code first}. */
  private KernelArguments prepared(
      KernelArguments args, int first, long[] bases, long[] gatherLayout) {
    for (int r = 0; r < PeerMemoryLayout.MAX_RANKS; r++) {
      args.setStructLong(first, r, bases[r]);
    }
    for (int i = 0; i < gatherLayout.length; i++) {
      args.setStructLong(first + 1, i, gatherLayout[i]);
    }
    return args.setLong(first + 2, control.address())
        .setInt(first + 3, rank)
        .setInt(first + 4, world);
  }

  /**
   * Sets up this rank's gather memory and exchanges it with the node's ranks; every rank of the
   * node calls this together. Returns null, with the reason in {@code reason[0]}, when the ranks'
   * settings differ where they must agree or a rank cannot reach the others' memory.
   */
  static GatherScatter open(
      CudaDevice device,
      KeyValueStore store,
      String keyPrefix,
      RankTopology topology,
      CudaCommunicatorSettings settings,
      String[] reason) {
    Optional<String> mismatch =
        geometry(settings, device.multiprocessors())
            .agree(
                store,
                keyPrefix,
                topology.localRank(),
                topology.localWorldSize(),
                settings.rendezvousTimeout());
    if (mismatch.isPresent()) {
      reason[0] = mismatch.get();
      return null;
    }
    long stride = rankStride(settings);
    PeerMemoryLayout layout =
        PeerMemoryLayout.of(
            topology.localWorldSize(), stride, llSlotBytes(settings.gatherLlMaxBytes()), 16);
    DeviceBuffer control = device.allocate(CONTROL_BYTES);
    PeerMemory memory;
    try {
      Stream stream = device.defaultStream();
      device.fill(control, 0, CONTROL_BYTES, (byte) 0, stream);
      stream.synchronize();
      memory = PeerMemory.create(device, store, keyPrefix, topology.localRank(), layout, settings);
    } catch (RuntimeException e) {
      control.close();
      throw e;
    }
    if (!memory.verdict().available()) {
      reason[0] = memory.verdict().reason();
      memory.close();
      control.close();
      return null;
    }
    Arena arena = Arena.ofShared();
    try {
      return new GatherScatter(device, topology, memory, control, arena, settings);
    } catch (RuntimeException e) {
      RuntimeException releaseFailure = Closing.newestFirst(List.of(control, memory, arena));
      if (releaseFailure != null) {
        e.addSuppressed(releaseFailure);
      }
      throw e;
    }
  }

  /**
   * The grid of every kernel of the kernel variant: every rank must launch the same one, so the
   * node agrees on the setting and its GPUs on their multiprocessors.
   */
  static int blocks(CudaCommunicatorSettings settings, int multiprocessors) {
    return Math.min(settings.gatherBlocks(), multiprocessors);
  }

  /** An LL slot carries 8 bytes of data in each 16-byte line. */
  static long llSlotBytes(long llMaxBytes) {
    return Math.max(16, 2 * llMaxBytes);
  }

  /** Both halves of a sender's all-reduce receive area form its slot here. */
  private static long rankStride(CudaCommunicatorSettings settings) {
    long slot = Math.min(MAX_SLOT_BYTES, settings.maxBytes());
    return Math.max(16, slot / 2 / ALIGNMENT * ALIGNMENT);
  }

  /**
   * What the node's ranks must agree on: the slot size and how the copy-engine variant cuts it into
   * parts, which decide where every piece lands and which token rows order it.
   */
  static NodeGeometry geometry(CudaCommunicatorSettings settings, int multiprocessors) {
    long slotBytes = 2 * rankStride(settings);
    return NodeGeometry.empty()
        .with("GPUCOMM_PEER_BUFFER_BYTES", settings.maxBytes())
        .with("GPUCOMM_COPYENGINE_PIECE_BYTES", settings.copyEnginePieceBytes())
        .with("GPUCOMM_GATHER_LL_MAX_BYTES", settings.gatherLlMaxBytes())
        .with(
            "GPUCOMM_GATHER_BLOCKS (at most the multiprocessors)",
            blocks(settings, multiprocessors))
        .with("GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES", settings.gatherSinglePassMaxBytes())
        .with("GPUCOMM_ALLGATHER_ROUND_BYTES", settings.allGatherRoundBytes())
        .with("GPUCOMM_REDUCESCATTER_ROUND_BYTES", settings.reduceScatterRoundBytes())
        .with("GPUCOMM_GATHER_OVERLAP", settings.gatherOverlap() ? "on" : "off")
        .with("gather slot bytes", slotBytes)
        .with(
            "copy-engine parts per slot",
            CopyEngineGather.parts(slotBytes, settings.copyEnginePieceBytes()));
  }

  /** Bytes per sender that one piece carries. */
  public long slotBytes() {
    return slotBytes;
  }

  /**
   * All-gather of {@code bytesPerRank} from {@code input} into {@code output} (rank r's bytes at r
   * · bytesPerRank). The communicator has checked capacities and that it is open.
   */
  void allGather(
      Variant variant, DeviceBuffer input, DeviceBuffer output, long bytesPerRank, Stream stream) {
    checkShape("all-gather", input, output, bytesPerRank);
    long in = input.address();
    long out = output.address();
    if (bytesPerRank == 0) {
      return;
    }
    synchronized (this) {
      if (variant == Variant.KERNEL) {
        allGatherArgs
            .setLong(IN, in)
            .setLong(OUT, out)
            .setLong(BYTES, bytesPerRank)
            .setLong(STRIDE, bytesPerRank);
        launch(
            bySize(bytesPerRank, allGatherLl, allGatherOneshot, allGatherPipelined),
            allGatherArgs,
            stream);
        return;
      }
      try {
        copyEngine.allGather(in, out, bytesPerRank, stream);
      } catch (RuntimeException e) {
        earlierFailure.record(COPY_ENGINE_FAILED, e);
        throw e;
      }
    }
  }

  /**
   * Reduce-scatter of {@code bytesPerShard} per rank: this rank's output is the sum, in rank order
   * in fp32, of shard {@code rank} of every rank's input. The communicator has checked capacities
   * and that it is open.
   */
  void reduceScatter(
      Variant variant,
      DeviceBuffer input,
      DeviceBuffer output,
      long bytesPerShard,
      DType dtype,
      Stream stream) {
    checkShape("reduce-scatter", input, output, bytesPerShard);
    long in = input.address();
    long out = output.address();
    int d = dtype.ordinal();
    if (bytesPerShard == 0) {
      return;
    }
    synchronized (this) {
      if (variant == Variant.KERNEL) {
        reduceScatterArgs[d]
            .setLong(IN, in)
            .setLong(OUT, out)
            .setLong(BYTES, bytesPerShard)
            .setLong(STRIDE, bytesPerShard);
        launch(
            bySize(
                bytesPerShard,
                reduceScatterLl[d],
                reduceScatterOneshot[d],
                reduceScatterPipelined[d]),
            reduceScatterArgs[d],
            stream);
        return;
      }
      try {
        copyEngine.reduceScatter(in, out, bytesPerShard, dtype, stream);
      } catch (RuntimeException e) {
        earlierFailure.record(COPY_ENGINE_FAILED, e);
        throw e;
      }
    }
  }

  private void launch(CudaKernel kernel, KernelArguments arguments, Stream stream) {
    try {
      kernel.launch(blocks, THREADS, stream, arguments);
    } catch (RuntimeException e) {
      earlierFailure.record(KERNEL_LAUNCH_FAILED, e);
      throw e;
    }
  }

  /** The kernel a call of {@code bytes} per rank runs: LL, the flag single pass, or rounds. */
  private CudaKernel bySize(
      long bytes, CudaKernel ll, CudaKernel singlePass, CudaKernel pipelined) {
    if (bytes <= llMaxBytes) {
      return ll;
    }
    return bytes <= oneshotMaxBytes ? singlePass : pipelined;
  }

  private void checkShape(String collective, DeviceBuffer input, DeviceBuffer output, long bytes) {
    if (closed.get()) {
      throw new IllegalStateException(collective + " of local rank " + rank + " is closed");
    }
    earlierFailure.refuseAfterFailure(collective, rank);
    if (bytes % ALIGNMENT != 0) {
      throw new IllegalArgumentException(
          "%s with peer memory moves whole %d-byte vectors per rank, got %d bytes; use nccl"
              .formatted(collective, ALIGNMENT, bytes));
    }
    if (input.address() % ALIGNMENT != 0 || output.address() % ALIGNMENT != 0) {
      throw new IllegalArgumentException(
          collective + " with peer memory needs 16-byte aligned buffers; use nccl");
    }
  }

  /** Releases the gather memory and the parameters after the last call completed on every rank. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      RuntimeException failure = Closing.newestFirst(List.of(arena, control, memory, copyEngine));
      if (failure != null) {
        throw failure;
      }
    }
  }
}
