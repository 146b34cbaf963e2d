package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Closing;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.CudaModule;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import dev.gpucomm.runtime.device.cuda.LaunchConfig;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fused one-shot, two-shot and Lamport one-shot all-reduce + residual + RMSNorm kernels of
 * {@code fusion.cu} over their own peer memory among the ranks of one node, with every kernel's
 * parameter block laid out once, so that a call allocates nothing and can be captured in a CUDA
 * graph.
 *
 * <p>The fusion area is a {@link PeerMemory} whose regions stand in for fusion.cu's {@code
 * FusionLayout}: the zeroed flag sets at its start hold the two fused barriers, the one-shot
 * receive area the inputs ({@code [2 parity][world][capacity]}), the sentinel-filled Lamport area
 * the Lamport slots ({@code [3][world][capacity]}), and the second Lamport area, which is larger
 * than four capacities, the two-shot gather area ({@code [2 parity][residual, out][capacity]}). Its
 * zeroed control block holds the per-block epochs of {@code FusionControl}. Calls run on a fixed
 * grid, since epochs and Lamport slots are kept per block (but for the two-shot's wide grid,
 * below); a call larger than the capacity is refused (the sweep reports it as not measured).
 *
 * <p>By default the one-shot runs the spread Lamport kernel and the two-shot the Lamport two-shot,
 * whose scatter and gather slots ({@code [2][3 slot][world][slice stride]}) lie in the second
 * Lamport area, both launched with programmatic dependent launch like the plain all-reduce kernels.
 * With {@link CudaCommunicatorSettings#fusedSpreadKernels()} off they run the first kernels instead
 * (the row-per-block Lamport one-shot and the flag two-shot, kept to compare): a communicator runs
 * one set or the other, since the flag two-shot's gather area is the Lamport two-shot's slots.
 *
 * <p>On Hopper and later GPUs a spread Lamport one-shot call of fewer rows than the grid has blocks
 * runs the cluster kernel instead, which splits each row's norm over a cluster of blocks ({@link
 * FusedClusterShape}); {@link CudaCommunicatorSettings#fusedClusterKernel()} off keeps it on the
 * spread kernel. Both kernels share the Lamport slots and their per-block state, so calls may
 * alternate between them. The spread kernel may have several blocks finish each row ({@link
 * FusedRowCopies}, {@link CudaCommunicatorSettings#fusedRowCopies()}).
 *
 * <p>Two-shot calls of more rows than the grid has blocks run on a grid twice as wide ({@link
 * FusedTwoShotGrid}) unless {@link CudaCommunicatorSettings#fusedWideGrid()} is off; the kernel
 * keeps its per-block state for the wide grid on every call, so calls may alternate between the two
 * grids. Two-shot calls on one or two ranks whose slices are whole rows, where most blocks have a
 * row and none has two, run {@code fused_lamport2_own}, in which each rank reduces and normalizes
 * its own rows in their blocks ({@link FusedTwoShotGrid#takesOwnRows}), unless {@link
 * CudaCommunicatorSettings#fusedOwnRows()} is off; it shares the slots and per-block state of
 * {@code fused_lamport2}, so calls may alternate between the two.
 */
final class FusedPeerAllReduce implements AutoCloseable {
  /** The most bytes per rank a fused call takes: enough for the token counts of decode steps. */
  static final long MAX_CAPACITY_BYTES = 4L << 20;

  /** fusion.cu's FUSION_MAX_BLOCKS: the per-block arrays of its flags and control block. */
  static final int MAX_BLOCKS = 132;

  /** The kernels, in the order of their parameter blocks. */
  enum Kernel {
    ONESHOT("fused_oneshot_"),
    TWOSHOT("fused_twoshot_"),
    LAMPORT("fused_lamport_"),
    LAMPORT_SPREAD("fused_lamport_spread_", true),
    LAMPORT_CLUSTER("fused_lamport_cluster_", true),
    LAMPORT2("fused_lamport2_", true),
    LAMPORT2_OWN("fused_lamport2_own_", true);

    final String prefix;

    /** Whether the kernel waits for the previous grid itself, so may start during its tail. */
    final boolean programmaticLaunch;

    Kernel(String prefix) {
      this(prefix, false);
    }

    Kernel(String prefix, boolean programmaticLaunch) {
      this.prefix = prefix;
      this.programmaticLaunch = programmaticLaunch;
    }
  }

  private static final int ROW_CALL = 0;
  private static final int PEERS = 1;
  private static final int LAYOUT = 2;
  private static final int CONTROL = 3;
  private static final int RANK = 4;
  private static final int WORLD = 5;

  private final PeerMemory memory;
  private final Arena arena;
  private final CudaKernel[][] kernels = new CudaKernel[Kernel.values().length][];
  private final KernelArguments[][] arguments = new KernelArguments[Kernel.values().length][];
  private final long capacityBytes;
  private final long lamportMaxBytes;
  private final Kernel lamportKernel;
  private final Kernel twoShotKernel;
  private final LaunchConfig programmaticConfig;
  private final LaunchConfig clusterConfig;

  /** How the cluster kernel cuts calls; null where it does not run. */
  private final FusedClusterShape clusterShape;

  private final int blocks;
  private final int world;

  /** Whether two-shot calls may run {@link Kernel#LAMPORT2_OWN}. */
  private final boolean ownRows;

  /** How many blocks of the spread one-shot finish each row of a call. */
  private final FusedRowCopies rowCopies;

  /**
   * The most blocks a two-shot call may run on: twice {@link #blocks} for the wide grid, unless the
   * settings turn it off or limit the communicator's blocks.
   */
  private final int twoShotMostBlocks;

  private final AtomicBoolean closed = new AtomicBoolean();

  private FusedPeerAllReduce(
      CudaDevice device,
      PeerMemory memory,
      Arena arena,
      int rank,
      int world,
      long lamportMaxBytes,
      CudaCommunicatorSettings settings) {
    this.memory = memory;
    this.arena = arena;
    PeerMemoryLayout layout = memory.layout();
    this.capacityBytes = layout.maxBytes();
    this.lamportMaxBytes = lamportMaxBytes;
    this.lamportKernel = settings.fusedSpreadKernels() ? Kernel.LAMPORT_SPREAD : Kernel.LAMPORT;
    this.twoShotKernel = settings.fusedSpreadKernels() ? Kernel.LAMPORT2 : Kernel.TWOSHOT;
    this.programmaticConfig =
        LaunchConfig.of(arena, settings.programmaticLaunch(), OptionalInt.empty());
    this.clusterConfig =
        LaunchConfig.withClusters(arena, settings.programmaticLaunch(), OptionalInt.empty());
    this.blocks = blocks(settings, device.multiprocessors());
    this.twoShotMostBlocks = twoShotMostBlocks(settings, blocks);
    this.world = world;
    this.ownRows = settings.fusedOwnRows();
    this.rowCopies = new FusedRowCopies(settings.fusedRowCopies());
    boolean clusters =
        device.computeCapability().map(capability -> capability.major() >= 9).orElse(false);
    this.clusterShape =
        settings.fusedSpreadKernels() && settings.fusedClusterKernel() && clusters
            ? new FusedClusterShape(blocks)
            : null;
    long[] fusionLayout = {
      layout.oneshotFlagsOffset(),
      layout.oneshotRecvOffset(),
      layout.lamport2Offset(),
      layout.lamportOffset(),
      layout.oneshotRankStride(),
      layout.lamport2RankStride(),
      // controlBlocks: the cluster kernel keeps the per-block state of the whole spread grid
      blocks
    };
    long[] bases = memory.bases();
    CudaModule module = device.module(FusionKernels.ptxResource(world));
    for (Kernel kernel : Kernel.values()) {
      kernels[kernel.ordinal()] = new CudaKernel[DType.values().length];
      arguments[kernel.ordinal()] = new KernelArguments[DType.values().length];
      for (DType dtype : DType.values()) {
        kernels[kernel.ordinal()][dtype.ordinal()] =
            module.kernel(kernel.prefix + dtype.wireName());
        KernelArguments args =
            new KernelArguments(
                arena,
                FusionKernels.ROW_CALL_BYTES,
                8L * PeerMemoryLayout.MAX_RANKS,
                8L * fusionLayout.length,
                8,
                4,
                4);
        for (int peer = 0; peer < PeerMemoryLayout.MAX_RANKS; peer++) {
          args.setStructLong(PEERS, peer, bases[peer]);
        }
        for (int i = 0; i < fusionLayout.length; i++) {
          args.setStructLong(LAYOUT, i, fusionLayout[i]);
        }
        args.setLong(CONTROL, memory.controlAddress()).setInt(RANK, rank).setInt(WORLD, world);
        arguments[kernel.ordinal()][dtype.ordinal()] = args;
      }
    }
  }

  /**
   * The fixed grid: one block per multiprocessor, at most fusion.cu's per-block arrays and the
   * communicator's block limit.
   */
  static int blocks(CudaCommunicatorSettings settings, int multiprocessors) {
    return Math.max(1, Math.min(MAX_BLOCKS, settings.blockLimit(multiprocessors)));
  }

  /**
   * The most blocks a two-shot call of {@code blocks} fixed blocks may launch: the wide grid's when
   * the settings allow it and set no block limit, else at most the limit (a communicator that
   * shares the GPU with matmuls keeps to its share of multiprocessors).
   */
  static int twoShotMostBlocks(CudaCommunicatorSettings settings, int blocks) {
    if (!settings.fusedWideGrid()) {
      return blocks;
    }
    return settings.maxBlocks() == CudaCommunicatorSettings.NO_BLOCK_LIMIT
        ? FusedTwoShotGrid.MAX_BLOCKS
        : Math.max(blocks, settings.maxBlocks());
  }

  /**
   * What the node's ranks must agree on: the capacity, the kernel set (the Lamport two-shot and the
   * flag two-shot use the gather area differently; the cluster kernel sums a row's squares in
   * another order than the spread kernel, so ranks that differ would not get identical rows), where
   * one-shot calls switch from the Lamport kernel to the flag one, the grid (block b of every rank
   * works on the same rows), and whether two-shot calls may widen it (the wide grid's blocks sum a
   * row's squares in groups of another size), and whether two-shot calls may take their own rows
   * (so that every rank runs the same kernel for a call).
   */
  static NodeGeometry geometry(CudaCommunicatorSettings settings, int multiprocessors) {
    int blocks = blocks(settings, multiprocessors);
    return NodeGeometry.empty()
        .with("GPUCOMM_PEER_BUFFER_BYTES", settings.maxBytes())
        .with("GPUCOMM_FUSED_SPREAD", settings.fusedSpreadKernels() ? "on" : "off")
        .with("GPUCOMM_FUSED_CLUSTER", settings.fusedClusterKernel() ? "on" : "off")
        .with("GPUCOMM_FUSED_WIDE_GRID", settings.fusedWideGrid() ? "on" : "off")
        .with("GPUCOMM_FUSED_OWN_ROWS", settings.fusedOwnRows() ? "on" : "off")
        .with("GPUCOMM_LAMPORT_MAX_BYTES", settings.lamportMaxBytes())
        .with("fused kernel blocks (the GPU's multiprocessors, or maxBlocks)", blocks)
        .with(
            "fused two-shot blocks at most (GPUCOMM_FUSED_WIDE_GRID and maxBlocks)",
            twoShotMostBlocks(settings, blocks));
  }

  /**
   * Allocates the fusion area on every rank of the node together and maps the peers'; null, with
   * {@code reason[0]} saying why, when the ranks' settings differ where they must agree or the
   * ranks cannot reach each other's memory.
   */
  static FusedPeerAllReduce open(
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
    long capacity = Math.min(MAX_CAPACITY_BYTES, settings.maxBytes());
    // Every region is a multiple of the capacity: recv 2·world, Lamport 3·world, gather 4 (inside
    // the second Lamport area, 6·world slices of capacity/world).
    PeerMemoryLayout layout =
        PeerMemoryLayout.of(topology.localWorldSize(), capacity, capacity, capacity);
    PeerMemory memory =
        PeerMemory.create(device, store, keyPrefix, topology.localRank(), layout, settings);
    if (!memory.verdict().available()) {
      reason[0] = memory.verdict().reason();
      memory.close();
      return null;
    }
    // Owned by the instance; released here when the constructor throws (a kernel missing from the
    // PTX, say), which would otherwise leave the arena's argument blocks allocated until exit.
    Arena arena = Arena.ofShared();
    try {
      return new FusedPeerAllReduce(
          device,
          memory,
          arena,
          topology.localRank(),
          topology.localWorldSize(),
          Math.min(settings.lamportMaxBytes(), layout.maxBytes()),
          settings);
    } catch (RuntimeException e) {
      RuntimeException releaseFailure = Closing.newestFirst(List.of(memory, arena));
      if (releaseFailure != null) {
        e.addSuppressed(releaseFailure);
      }
      throw e;
    }
  }

  /** The largest fused call in bytes per rank (of the element type, tokens × hidden). */
  long maxBytes() {
    return capacityBytes;
  }

  /** Why a call of this shape cannot run here; empty when it can. */
  Optional<String> refusal(long tokens, DType dtype, NormEpilogue epilogue) {
    long rowBytes = (long) epilogue.hiddenSize() * dtype.bytes();
    if (rowBytes % 16 != 0) {
      return Optional.of(
          "rows of %d %s elements are not whole 16-byte vectors"
              .formatted(epilogue.hiddenSize(), dtype.wireName()));
    }
    if (tokens * rowBytes > capacityBytes) {
      return Optional.of(
          "%d bytes per rank exceed the fused kernels' peer memory of %d bytes"
              .formatted(tokens * rowBytes, capacityBytes));
    }
    return Optional.empty();
  }

  /**
   * The kernel {@code algorithm} runs for a call of {@code tokens} rows: one-shot takes a Lamport
   * kernel up to the size where the plain one-shot does, the flag kernel above it, and of the
   * Lamport kernels the cluster one where it runs and takes the call's shape; two-shot the Lamport
   * two-shot (the one that takes its own rows where the call's grid suits it), or the flag two-shot
   * where the settings chose the first kernels.
   */
  Kernel kernel(Algorithm algorithm, long tokens, DType dtype, NormEpilogue epilogue) {
    long bytes = tokens * epilogue.hiddenSize() * dtype.bytes();
    return switch (algorithm) {
      case ONESHOT -> {
        if (bytes > lamportMaxBytes) {
          yield Kernel.ONESHOT;
        }
        yield clusterSize(tokens, dtype, epilogue) > 0 ? Kernel.LAMPORT_CLUSTER : lamportKernel;
      }
      case TWOSHOT ->
          twoShotKernel == Kernel.LAMPORT2
                  && ownRows
                  && twoShotGrid(tokens, dtype, epilogue)
                      .takesOwnRows(tokens, rowVectors(dtype, epilogue), world)
              ? Kernel.LAMPORT2_OWN
              : twoShotKernel;
      default -> throw new IllegalArgumentException(algorithm + " has no fused peer kernel");
    };
  }

  /** The blocks of the cluster kernel that share each row of the call; 0 where it does not run. */
  private int clusterSize(long tokens, DType dtype, NormEpilogue epilogue) {
    return clusterShape == null ? 0 : clusterShape.clusterSize(tokens, rowVectors(dtype, epilogue));
  }

  private FusedTwoShotGrid twoShotGrid(long tokens, DType dtype, NormEpilogue epilogue) {
    return FusedTwoShotGrid.of(
        tokens,
        rowVectors(dtype, epilogue),
        blocks,
        FusionKernels.threads(epilogue.hiddenSize(), dtype),
        twoShotMostBlocks);
  }

  private static long rowVectors(DType dtype, NormEpilogue epilogue) {
    return (long) epilogue.hiddenSize() * dtype.bytes() / 16;
  }

  /**
   * Launches {@code kernel} for one call whose shape {@link #refusal} accepted; calls must be
   * ordered with respect to each other, as the communicator's are.
   */
  void launch(
      Kernel kernel,
      FusedBuffers buffers,
      long tokens,
      DType dtype,
      NormEpilogue epilogue,
      Stream stream) {
    if (closed.get()) {
      throw new IllegalStateException("the fused peer all-reduce is closed");
    }
    KernelArguments args = arguments[kernel.ordinal()][dtype.ordinal()];
    synchronized (this) {
      int threads = FusionKernels.threads(epilogue.hiddenSize(), dtype);
      int copies =
          kernel == Kernel.LAMPORT_SPREAD
              ? rowCopies.copies(world, tokens, rowVectors(dtype, epilogue), blocks, threads)
              : 1;
      FusionKernels.writeRowCall(args, ROW_CALL, buffers, tokens, epilogue, copies);
      CudaKernel function = kernels[kernel.ordinal()][dtype.ordinal()];
      if (kernel == Kernel.LAMPORT_CLUSTER) {
        int clusterSize = clusterSize(tokens, dtype, epilogue);
        function.launch(
            clusterShape.blocks(clusterSize),
            FusedClusterShape.threads(rowVectors(dtype, epilogue), clusterSize),
            clusterSize,
            stream,
            args,
            clusterConfig);
        return;
      }
      int gridBlocks = blocks;
      if (kernel == Kernel.LAMPORT2 || kernel == Kernel.LAMPORT2_OWN) {
        FusedTwoShotGrid grid = twoShotGrid(tokens, dtype, epilogue);
        gridBlocks = grid.blocks();
        threads = grid.threads();
      }
      if (kernel.programmaticLaunch) {
        function.launch(gridBlocks, threads, stream, args, programmaticConfig);
      } else {
        function.launch(gridBlocks, threads, stream, args);
      }
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        memory.close();
      } finally {
        arena.close();
      }
    }
  }
}
