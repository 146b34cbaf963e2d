package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.CudaModule;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import dev.gpucomm.runtime.device.cuda.LaunchConfig;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/**
 * The all-reduce kernels of one communicator with their parameter blocks prepared once: peer base
 * addresses, layout, control block, rank and world are written at creation, so a call only writes
 * input, output and size, then launches.
 */
final class AllReduceKernels {
  static final int THREADS_PER_BLOCK = 512;

  /** The PTX built for this world size (loops sized at compile time), else the generic one. */
  static String ptxResource(int world) {
    return world == 2 || world == 4 || world == 8
        ? "ptx/allreduce-w" + world + ".ptx"
        : "ptx/allreduce.ptx";
  }

  /** The kernel families of allreduce.cu. */
  enum Variant {
    ONESHOT("oneshot"),
    TWOSHOT("twoshot"),
    LAMPORT("lamport"),
    LAMPORT2("lamport2"),
    /** One-shot with its warps split into a pushing and a reducing team; shares ONESHOT's state. */
    ONESHOT_WS("oneshot_ws"),
    /** Two-shot with scatter, reduce and gather teams; shares TWOSHOT's state. */
    TWOSHOT_WS("twoshot_ws"),
    /**
     * ONESHOT_WS on two ranks whose first bytes come through host memory ({@link HostPath}); shares
     * ONESHOT's state.
     */
    ONESHOT_WSH("oneshot_wsh"),
    /**
     * TWOSHOT_WS whose first bytes are scattered through host memory ({@link HostPath}); shares
     * TWOSHOT's state.
     */
    TWOSHOT_WSH("twoshot_wsh"),
    /**
     * ONESHOT_WS over a call larger than the receive areas, pass after pass in one launch, the
     * pushing warps one pass ahead where the peers' credits allow; shares ONESHOT's state.
     */
    ONESHOT_STREAM("oneshot_stream");

    final String kernelPrefix;

    Variant(String kernelPrefix) {
      this.kernelPrefix = kernelPrefix;
    }

    /** The host path's route of a {@code *_wsh} kernel; null for the others. */
    HostPath.Route hostRoute() {
      return switch (this) {
        case ONESHOT_WSH -> HostPath.Route.ONE_SHOT;
        case TWOSHOT_WSH -> HostPath.Route.TWO_SHOT;
        default -> null;
      };
    }

    /** The kernel a {@code *_wsh} call runs when its share rounds to nothing. */
    Variant withoutHostPath() {
      return switch (this) {
        case ONESHOT_WSH -> ONESHOT_WS;
        case TWOSHOT_WSH -> TWOSHOT_WS;
        default -> this;
      };
    }

    static Variant withHostPath(HostPath.Route route) {
      return route == HostPath.Route.ONE_SHOT ? ONESHOT_WSH : TWOSHOT_WSH;
    }

    /**
     * The variant whose kernels are named {@code gpucomm_<name>_<dtype>}.
     *
     * @throws IllegalArgumentException naming the variants when there is none of that name
     */
    static Variant named(String name) {
      for (Variant variant : values()) {
        if (variant.kernelPrefix.equals(name)) {
          return variant;
        }
      }
      List<String> names = Arrays.stream(values()).map(v -> v.kernelPrefix).toList();
      throw new IllegalArgumentException(
          "kernel variant must be "
              + String.join(", ", names.subList(0, names.size() - 1))
              + " or "
              + names.getLast()
              + ", got '"
              + name
              + "'");
    }
  }

  private static final int INPUT = 0;
  private static final int OUTPUT = 1;
  private static final int BYTES = 2;
  private static final int PEERS = 3;
  private static final int LAYOUT = 4;
  private static final int CONTROL = 5;
  private static final int RANK = 6;
  private static final int WORLD = 7;
  private static final int MAX_CHUNKS = 8;
  private static final int HOST_BYTES = 9;
  private static final int HOST_CHUNKS = 10;

  private final CudaKernel[][] kernels;
  private final KernelArguments[][] arguments;
  private final LaunchConfig launchConfig;

  AllReduceKernels(
      CudaModule module,
      Arena arena,
      long[] peerBases,
      long[] layoutStruct,
      long controlAddress,
      int rank,
      int world,
      boolean programmaticLaunch,
      OptionalInt priority) {
    launchConfig = LaunchConfig.of(arena, programmaticLaunch, priority);
    Variant[] variants = Variant.values();
    DType[] dtypes = DType.values();
    kernels = new CudaKernel[variants.length][dtypes.length];
    arguments = new KernelArguments[variants.length][dtypes.length];
    for (Variant variant : variants) {
      for (DType dtype : dtypes) {
        kernels[variant.ordinal()][dtype.ordinal()] =
            module.kernel("gpucomm_" + variant.kernelPrefix + "_" + dtype.wireName());
        KernelArguments args =
            new KernelArguments(
                arena,
                8,
                8,
                8,
                8L * PeerMemoryLayout.MAX_RANKS,
                8L * layoutStruct.length,
                8,
                4,
                4,
                4,
                8,
                4);
        for (int i = 0; i < PeerMemoryLayout.MAX_RANKS; i++) {
          args.setStructLong(PEERS, i, peerBases[i]);
        }
        for (int i = 0; i < layoutStruct.length; i++) {
          args.setStructLong(LAYOUT, i, layoutStruct[i]);
        }
        args.setLong(CONTROL, controlAddress).setInt(RANK, rank).setInt(WORLD, world);
        args.setLong(HOST_BYTES, 0).setInt(HOST_CHUNKS, 0);
        arguments[variant.ordinal()][dtype.ordinal()] = args;
      }
    }
  }

  /**
   * Launches one all-reduce on {@code blocks} blocks, which must be the same for every call of a
   * variant (the vector-to-block mapping has to stay fixed); callers serialize calls (the parameter
   * block is shared).
   */
  void launch(
      Variant variant,
      DType dtype,
      long input,
      long output,
      long bytes,
      int blocks,
      int maxChunks,
      Stream stream) {
    launch(variant, dtype, input, output, bytes, blocks, maxChunks, 0, 0, stream);
  }

  /**
   * Launches {@code oneshot_stream} over {@code bytes} in passes of {@code passBytes} (the kernel
   * takes the pass size where the host-path kernels take their share).
   */
  void launchStreamed(
      DType dtype,
      long input,
      long output,
      long bytes,
      long passBytes,
      int blocks,
      int maxChunks,
      Stream stream) {
    launch(
        Variant.ONESHOT_STREAM,
        dtype,
        input,
        output,
        bytes,
        blocks,
        maxChunks,
        passBytes,
        0,
        stream);
  }

  /**
   * {@link #launch} with the host path's share: the first {@code hostBytes} (whole vectors, equal
   * {@code hostChunks}) come through host memory; only the {@code *_wsh} variants read them.
   */
  void launch(
      Variant variant,
      DType dtype,
      long input,
      long output,
      long bytes,
      int blocks,
      int maxChunks,
      long hostBytes,
      int hostChunks,
      Stream stream) {
    KernelArguments args = arguments[variant.ordinal()][dtype.ordinal()];
    args.setLong(INPUT, input).setLong(OUTPUT, output).setLong(BYTES, bytes);
    args.setInt(MAX_CHUNKS, maxChunks);
    args.setLong(HOST_BYTES, hostBytes).setInt(HOST_CHUNKS, hostChunks);
    kernels[variant.ordinal()][dtype.ordinal()].launch(
        blocks, THREADS_PER_BLOCK, stream, args, launchConfig);
  }
}
