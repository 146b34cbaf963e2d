package dev.gpucomm.runtime.collective.cuda;

import java.time.Duration;
import java.util.Map;

/**
 * What a CUDA communicator uses: NCCL, and the sizes and launch shapes of the peer-memory (IPC)
 * algorithms, with defaults that can be overridden through the environment:
 *
 * <ul>
 *   <li>{@code GPUCOMM_NCCL=off} does without NCCL (peer memory only; e.g. ranks sharing a GPU,
 *       which NCCL refuses);
 *   <li>{@code GPUCOMM_PEER_MEMORY=off} disables the IPC algorithms (NCCL only);
 *   <li>{@code GPUCOMM_PEER_BUFFER_BYTES}: largest all-reduce the IPC algorithms take (64 MiB);
 *   <li>{@code GPUCOMM_LAMPORT_MAX_BYTES}: one-shot calls up to this size use the flag-free Lamport
 *       kernel (0 turns it off; default 4 MiB below four ranks, 2 MiB from four; the Lamport
 *       defaults never exceed the peer buffer size);
 *   <li>{@code GPUCOMM_LAMPORT2_MAX_BYTES}: two-shot calls up to this size use the flag-free
 *       Lamport two-shot kernel (0 turns it off; default 16 MiB);
 *   <li>{@code GPUCOMM_ONESHOT_BLOCKS}, {@code GPUCOMM_TWOSHOT_BLOCKS}, {@code
 *       GPUCOMM_LAMPORT_BLOCKS}: the thread blocks each kernel runs (a fixed grid per algorithm, at
 *       most 160 and at most the GPU's multiprocessors);
 *   <li>{@code GPUCOMM_ONESHOT_CHUNKS}, {@code GPUCOMM_TWOSHOT_CHUNKS}: most chunks a large
 *       one-shot or two-shot call is cut into, so that NVLink transfers and local reduction overlap
 *       (one-shot 16; two-shot 8 below four ranks, 2 from four);
 *   <li>{@code GPUCOMM_ONESHOT_WS_MIN_BYTES}, {@code GPUCOMM_TWOSHOT_WS_MIN_BYTES}: one-shot and
 *       two-shot calls from this size run the warp-specialized kernels, whose pushing, reducing and
 *       gathering warps work on different chunks at the same time (defaults where they won on
 *       H200s: one-shot from 8 MiB on two ranks; two-shot at 64 MiB on two ranks and from 32 MiB on
 *       four; never otherwise; a value above the peer buffer size turns them off, but for the
 *       streamed one-shot, which is warp-specialized);
 *   <li>{@code GPUCOMM_COPYENGINE_PIECE_BYTES}: the largest piece the copy-engine all-gather and
 *       reduce-scatter push at once, while the pieces before it are copied out or summed (16 MiB;
 *       at most a 32 MiB gather slot, which holds from 2 to 16 pieces per sender);
 *   <li>{@code GPUCOMM_GATHER_LL_MAX_BYTES}: all-gather and reduce-scatter calls of {@code oneshot}
 *       up to this many bytes per rank run the LL kernels, whose data carries its own flags (twice
 *       the bytes on NVLink, no barrier); larger ones the flag kernels (512 KiB, where the flag
 *       kernels overtook them on H100 pairs; at most 1 MiB and the peer buffer size; 0 turns them
 *       off);
 *   <li>{@code GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES}: calls above the LL limit and up to this many
 *       bytes per rank run the flag single-pass kernels, larger ones pipelined rounds (8 MiB, the
 *       most; calls also run in rounds above the single-pass slot of the peer buffer: 8 MiB per
 *       rank at two ranks with the default buffer, 4 at four, 2 at eight);
 *   <li>{@code GPUCOMM_ALLGATHER_ROUND_BYTES}, {@code GPUCOMM_REDUCESCATTER_ROUND_BYTES}: the bytes
 *       per rank of one round of the pipelined kernels, whose copy-out (or sum) of a round overlaps
 *       the push of the next (all-gather 16 MiB, reduce-scatter 8 MiB; from 64 KiB to 16 MiB, half
 *       a gather slot, and at most half the slot of a smaller peer buffer);
 *   <li>{@code GPUCOMM_GATHER_OVERLAP=off} runs the pipelined rounds on the first kernels, whose
 *       whole block pushes a round and then copies out the one before, instead of half the block
 *       pushing while the other half copies out (on by default; off is there to compare);
 *   <li>{@code GPUCOMM_GATHER_BLOCKS}: the thread blocks every all-gather and reduce-scatter kernel
 *       of {@code oneshot} runs (128, at most 160 and at most the GPU's multiprocessors);
 *   <li>{@code GPUCOMM_PDL=off} launches the IPC kernels as ordinary launches instead of with
 *       programmatic dependent launch (which lets a kernel be scheduled while the previous one on
 *       its stream finishes; on by default);
 *   <li>{@code GPUCOMM_ONESHOT_STREAM_MIN_BYTES}: one-shot calls larger than the peer buffer and at
 *       least this large run in one launch ({@code oneshot_stream}) whose pushing warps start the
 *       next pass of the buffer while the reducing warps finish this one; smaller ones run one
 *       launch per pass, each a complete call that may take the host path (1 GiB, from where it won
 *       on H100 pairs; 0 streams every call above the peer buffer);
 *   <li>{@code GPUCOMM_FUSED_SPREAD=off} runs the fused all-reduce + residual + RMSNorm on
 *       fusion.cu's first kernels (a Lamport one-shot whose sends and waits stay within each row's
 *       block, a flag two-shot) instead of the Lamport kernels that spread their work over the grid
 *       (on by default; off is there to compare the two);
 *   <li>{@code GPUCOMM_FUSED_CLUSTER=on} splits each row of the fused one-shot's norm over a
 *       cluster of blocks ({@code fused_lamport_cluster}, on Hopper and later GPUs, for calls of
 *       fewer rows than the grid has blocks, with the spread kernels) instead of one block per row
 *       ({@code fused_lamport_spread}); off by default, since it measured 0.3-0.8 us slower on H100
 *       pairs at 4-64 tokens, and there to compare;
 *   <li>{@code GPUCOMM_FUSED_WIDE_GRID=off} keeps fused two-shot calls of more rows than the grid
 *       has blocks on the fixed grid instead of a grid of twice the blocks with half the threads
 *       ({@link FusedTwoShotGrid}; on by default, off is there to compare);
 *   <li>{@code GPUCOMM_FUSED_OWN_ROWS=off} keeps fused two-shot calls whose slices are whole rows
 *       on {@code fused_lamport2} instead of {@code fused_lamport2_own}, in which each rank reduces
 *       and normalizes its own rows in their blocks ({@link FusedTwoShotGrid#takesOwnRows}; on by
 *       default, off is there to compare);
 *   <li>{@code GPUCOMM_FUSED_ROW_COPIES}: how many blocks of the fused one-shot's spread kernel
 *       finish each row of a call on one or two ranks, {@code auto} (the default: two on two ranks
 *       for calls of 8 rows up to half the grid's blocks, else one; {@link FusedRowCopies}) or a
 *       count from 1 (one block a row, to compare) to 8, for every call whose rows fit it (fewer
 *       where the grid has no room for that many blocks a row). The outputs are the same bit for
 *       bit whatever it is, so ranks need not agree on it;
 *   <li>{@code GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS}: how long to wait for peers at creation;
 *   <li>{@code GPUCOMM_HOST_PATH}, {@code GPUCOMM_HOST_PATH_MIN_BYTES}, {@code
 *       GPUCOMM_HOST_PATH_SHARE}, {@code GPUCOMM_HOST_PATH_CHUNKS}: the host path of the one-shot
 *       on two ranks and the two-shot on four (see {@link HostPathSettings}).
 * </ul>
 *
 * <p>{@link #maxBlocks()} is not read from the environment: a program sets it through {@link
 * #withMaxBlocks} for the communicators of streams that share the GPU with matmuls.
 */
public record CudaCommunicatorSettings(
    boolean ncclEnabled,
    boolean enabled,
    long maxBytes,
    long lamportMaxBytes,
    long lamport2MaxBytes,
    int oneShotBlocks,
    int twoShotBlocks,
    int lamportBlocks,
    int oneShotChunks,
    int twoShotChunks,
    long oneShotWsMinBytes,
    long twoShotWsMinBytes,
    long copyEnginePieceBytes,
    long gatherLlMaxBytes,
    long gatherSinglePassMaxBytes,
    long allGatherRoundBytes,
    long reduceScatterRoundBytes,
    boolean gatherOverlap,
    int gatherBlocks,
    boolean programmaticLaunch,
    long oneShotStreamMinBytes,
    boolean fusedSpreadKernels,
    boolean fusedClusterKernel,
    boolean fusedWideGrid,
    boolean fusedOwnRows,
    int fusedRowCopies,
    Duration rendezvousTimeout,
    int maxBlocks,
    HostPathSettings hostPath) {
  /** Most blocks a kernel may use: the flag areas have one row per block. */
  public static final int MAX_BLOCKS = 160;

  /** Largest peer buffer: pipeline chunk numbers must fit 16 bits even with one block. */
  public static final long MAX_PEER_BUFFER_BYTES = 256L << 20;

  public static final long DEFAULT_MAX_BYTES = 64L << 20;

  /**
   * On H100 pairs with the default peer buffer the streamed one-shot beat the one-shot in passes
   * from 1 GiB (2 GiB 6073 against 6185 µs) and lost below (128 MiB 403 against 384 µs, where each
   * pass still takes the host path); bench/results/2026-11-26-large-allreduce/.
   */
  public static final long DEFAULT_ONESHOT_STREAM_MIN_BYTES = 1L << 30;

  /** A quarter of the largest gather slot: four pieces in flight per sender. */
  // 16 MiB: on H100 pairs 4 and 8 MiB pieces left the engines below their bandwidth (all-gather
  // 64 MiB 448 and 367 µs, 16 MiB pieces 332 against a both-ways ceiling of 299).
  public static final long DEFAULT_COPY_ENGINE_PIECE_BYTES = 16L << 20;

  /** The largest all-gather or reduce-scatter per rank that the LL kernels take. */
  static final long MAX_GATHER_LL_BYTES = 1L << 20;

  /**
   * On H100 pairs the LL kernels beat the flag single pass up to 512 KiB per rank and lost at 1 MiB
   * (all-gather 12.3 against 10.9 µs), where twice the bytes on NVLink cost more than the barrier
   * they save ({@code bench/results/2026-11-26-gather-scatter/}).
   */
  public static final long DEFAULT_GATHER_LL_MAX_BYTES = 512L << 10;

  static final long MAX_GATHER_SINGLE_PASS_BYTES = 8L << 20;

  /**
   * The single-pass kernels' limit, above which the kernel variant runs pipelined rounds: on 128
   * blocks the single pass beat the rounds at every size up to 8 MiB per rank on H100 pairs
   * (all-gather 4 MiB 21.2 against 26.3 µs, 8 MiB 34.9 against 58.4), and the single-pass slot of
   * the default peer buffer holds 8 MiB per rank at two ranks (4 at four, 2 at eight).
   */
  public static final long DEFAULT_GATHER_SINGLE_PASS_MAX_BYTES = MAX_GATHER_SINGLE_PASS_BYTES;

  /** The smallest pipelined round: more rounds per call would mostly wait on flags. */
  static final long MIN_GATHER_ROUND_BYTES = 64L << 10;

  /** The largest pipelined round: half of the largest gather slot, as rounds alternate halves. */
  static final long MAX_GATHER_ROUND_BYTES = GatherScatter.MAX_SLOT_BYTES / 2;

  /**
   * Bytes per rank of one pipelined all-gather round (capped at half a slot): on H100 pairs, with
   * half of each block copying out while the other half pushes, 16 MiB rounds beat 8 and 4 MiB from
   * 64 MiB per rank (256 MiB 751 against 805 and 940 µs; 8 MiB won by 2-4 µs at 16-32 MiB).
   */
  public static final long DEFAULT_ALLGATHER_ROUND_BYTES = 16L << 20;

  /**
   * Bytes per rank of one pipelined reduce-scatter round: its sum reads one more buffer than the
   * all-gather's copy-out, and on H100 pairs 8 MiB rounds beat 16 and 4 MiB at every size from 16
   * to 256 MiB per rank (256 MiB 825 against 882 and 1010 µs).
   */
  public static final long DEFAULT_REDUCESCATTER_ROUND_BYTES = 8L << 20;

  /**
   * 128 blocks drive more NVLink stores than 32: the LL kernels 25 % faster from 128 KiB, 0.1-0.3
   * µs slower at 64 KiB, on H100 pairs.
   */
  public static final int DEFAULT_GATHER_BLOCKS = 128;

  /** The largest copy-engine piece: one whole gather slot. */
  static final long MAX_COPY_ENGINE_PIECE_BYTES = GatherScatter.MAX_SLOT_BYTES;

  /**
   * Lamport one-shot buffer; calls up to it use the kernel below four ranks, where it beat the flag
   * one-shot up to this size ({@code bench/results/2026-11-21-4xH200/}).
   */
  public static final long DEFAULT_LAMPORT_MAX_BYTES = 4L << 20;

  /**
   * From four ranks the Lamport one-shot wins only up to 2 MiB ({@code
   * bench/results/2026-11-22-4xH200-lamport-spread/}).
   */
  static final long LAMPORT_MAX_BYTES_FROM_FOUR_RANKS = 2L << 20;

  /**
   * Lamport two-shot buffer and limit: with its work spread over the whole grid it beats the flag
   * two-shot up to 16 MiB at 2 and 4 ranks, not at 32 ({@code
   * bench/results/2026-11-22-4xH200-lamport-spread/}). Its buffer is six times this size.
   */
  public static final long DEFAULT_LAMPORT2_MAX_BYTES = 16L << 20;

  /**
   * The warp-specialized size limits when no variable sets them: chosen by world size (see {@link
   * #oneShotWsMinBytesFor} and {@link #twoShotWsMinBytesFor}).
   */
  public static final long AUTOMATIC_BYTES = -1;

  /** A size limit no call reaches: the warp-specialized kernel is never chosen. */
  public static final long NEVER = Long.MAX_VALUE;

  /** {@link #maxBlocks()} when nothing limits the communicator's kernels as a whole. */
  public static final int NO_BLOCK_LIMIT = 0;

  /** Two-shot pipeline depth chosen by world size (see {@link #twoShotChunksFor}). */
  public static final int AUTOMATIC = 0;

  public CudaCommunicatorSettings {
    if (maxBytes < 16 || maxBytes % 16 != 0 || maxBytes > MAX_PEER_BUFFER_BYTES) {
      throw new IllegalArgumentException(
          "GPUCOMM_PEER_BUFFER_BYTES must be a positive multiple of 16 up to "
              + MAX_PEER_BUFFER_BYTES
              + ", got "
              + maxBytes);
    }
    if (lamportMaxBytes < 0 || lamportMaxBytes % 16 != 0 || lamportMaxBytes > maxBytes) {
      throw new IllegalArgumentException(
          "GPUCOMM_LAMPORT_MAX_BYTES must be a multiple of 16 between 0 and the peer buffer size, got "
              + lamportMaxBytes);
    }
    if (lamport2MaxBytes < 0 || lamport2MaxBytes % 16 != 0 || lamport2MaxBytes > maxBytes) {
      throw new IllegalArgumentException(
          "GPUCOMM_LAMPORT2_MAX_BYTES must be a multiple of 16 between 0 and the peer buffer size,"
              + " got "
              + lamport2MaxBytes);
    }
    checkBlocks("GPUCOMM_ONESHOT_BLOCKS", oneShotBlocks);
    checkBlocks("GPUCOMM_TWOSHOT_BLOCKS", twoShotBlocks);
    checkBlocks("GPUCOMM_LAMPORT_BLOCKS", lamportBlocks);
    checkBytesOrAutomatic("GPUCOMM_ONESHOT_WS_MIN_BYTES", oneShotWsMinBytes);
    checkBytesOrAutomatic("GPUCOMM_TWOSHOT_WS_MIN_BYTES", twoShotWsMinBytes);
    if (copyEnginePieceBytes < 16
        || copyEnginePieceBytes % 16 != 0
        || copyEnginePieceBytes > MAX_COPY_ENGINE_PIECE_BYTES) {
      throw new IllegalArgumentException(
          "GPUCOMM_COPYENGINE_PIECE_BYTES must be a positive multiple of 16 up to "
              + MAX_COPY_ENGINE_PIECE_BYTES
              + ", got "
              + copyEnginePieceBytes);
    }
    if (gatherLlMaxBytes < 0
        || gatherLlMaxBytes % 16 != 0
        || gatherLlMaxBytes > Math.min(MAX_GATHER_LL_BYTES, maxBytes)) {
      throw new IllegalArgumentException(
          "GPUCOMM_GATHER_LL_MAX_BYTES must be a multiple of 16 between 0 and "
              + Math.min(MAX_GATHER_LL_BYTES, maxBytes)
              + " (1 MiB and the peer buffer size), got "
              + gatherLlMaxBytes);
    }
    if (gatherSinglePassMaxBytes < 0
        || gatherSinglePassMaxBytes % 16 != 0
        || gatherSinglePassMaxBytes > MAX_GATHER_SINGLE_PASS_BYTES) {
      throw new IllegalArgumentException(
          "GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES must be a multiple of 16 between 0 and "
              + MAX_GATHER_SINGLE_PASS_BYTES
              + ", got "
              + gatherSinglePassMaxBytes);
    }
    checkRound("GPUCOMM_ALLGATHER_ROUND_BYTES", allGatherRoundBytes);
    checkRound("GPUCOMM_REDUCESCATTER_ROUND_BYTES", reduceScatterRoundBytes);
    checkBlocks("GPUCOMM_GATHER_BLOCKS", gatherBlocks);
    checkChunks("GPUCOMM_ONESHOT_CHUNKS", oneShotChunks);
    checkChunks("GPUCOMM_TWOSHOT_CHUNKS", twoShotChunks);
    if (maxBlocks != NO_BLOCK_LIMIT) {
      checkBlocks("maxBlocks", maxBlocks);
    }
  }

  /**
   * These settings with every kernel of the communicator limited to {@code maxBlocks} thread
   * blocks: the peer-memory grids are capped to it, and NCCL gets it as its maxCTAs.
   */
  public CudaCommunicatorSettings withMaxBlocks(int maxBlocks) {
    checkBlocks("maxBlocks", maxBlocks);
    return new CudaCommunicatorSettings(
        ncclEnabled,
        enabled,
        maxBytes,
        lamportMaxBytes,
        lamport2MaxBytes,
        oneShotBlocks,
        twoShotBlocks,
        lamportBlocks,
        oneShotChunks,
        twoShotChunks,
        oneShotWsMinBytes,
        twoShotWsMinBytes,
        copyEnginePieceBytes,
        gatherLlMaxBytes,
        gatherSinglePassMaxBytes,
        allGatherRoundBytes,
        reduceScatterRoundBytes,
        gatherOverlap,
        gatherBlocks,
        programmaticLaunch,
        oneShotStreamMinBytes,
        fusedSpreadKernels,
        fusedClusterKernel,
        fusedWideGrid,
        fusedOwnRows,
        fusedRowCopies,
        rendezvousTimeout,
        maxBlocks,
        hostPath);
  }

  /** The most blocks a kernel may launch on a GPU with {@code multiprocessors}. */
  int blockLimit(int multiprocessors) {
    return maxBlocks == NO_BLOCK_LIMIT ? multiprocessors : Math.min(maxBlocks, multiprocessors);
  }

  private static void checkBytesOrAutomatic(String name, long bytes) {
    if (bytes < 0 && bytes != AUTOMATIC_BYTES) {
      throw new IllegalArgumentException(name + " must not be negative, got " + bytes);
    }
  }

  private static void checkChunks(String name, int chunks) {
    if (chunks != AUTOMATIC && (chunks < 1 || chunks > KernelShape.MAX_PIPELINE_CHUNKS)) {
      throw new IllegalArgumentException(
          name + " must be between 1 and " + KernelShape.MAX_PIPELINE_CHUNKS + ", got " + chunks);
    }
  }

  /**
   * Warp-specialized one-shot from 8 MiB at two ranks, where it beat the flag one-shot at every
   * size from 8 to 64 MiB and lost below, where the Lamport one-shot runs anyway. Never from four
   * ranks, where it was no faster than the flag one-shot and the two-shot wins those sizes anyway;
   * nor at eight, where it was slower. Figures: {@code
   * bench/results/2026-11-22-2xH200-warp-specialized/}, {@code
   * bench/results/2026-11-22-4xH200-warp-specialized/}, {@code
   * bench/results/2026-11-22-8xH200-tp8/}.
   */
  static long oneShotWsMinBytesFor(int world) {
    return world == 2 ? 8L << 20 : NEVER;
  }

  /**
   * Warp-specialized two-shot at two ranks only at 64 MiB, the one size where it beat the flag
   * two-shot; at four ranks from 32 MiB, where it beat the flag two-shot (they tie at 16 MiB, which
   * the Lamport two-shot takes by default anyway). Never at eight ranks, where it lost to the flag
   * two-shot at every size; other world sizes were not tried: never there either. Figures: the same
   * study folders as {@link #oneShotWsMinBytesFor}.
   */
  static long twoShotWsMinBytesFor(int world) {
    return switch (world) {
      case 2 -> 64L << 20;
      case 4 -> 32L << 20;
      default -> NEVER;
    };
  }

  /**
   * Two-shot pipeline depth: 8 chunks below four ranks, 2 from four, the fastest depths in the
   * sweeps of {@code bench/results/2026-11-22-4xH200-warp-specialized/} and {@code
   * bench/results/2026-11-22-8xH200-tp8/}.
   */
  static int twoShotChunksFor(int world) {
    return world >= 4 ? 2 : 8;
  }

  /**
   * The kernel shape these settings ask for, for a node of {@code world} ranks. The Lamport
   * one-shot keeps its whole buffer below four ranks; from four, unless GPUCOMM_LAMPORT_MAX_BYTES
   * chose otherwise, it stops at 2 MiB, where the flag one-shot overtakes it.
   */
  public KernelShape kernelShape(int world) {
    long lamportLimit =
        world >= 4 && lamportMaxBytes == DEFAULT_LAMPORT_MAX_BYTES
            ? LAMPORT_MAX_BYTES_FROM_FOUR_RANKS
            : lamportMaxBytes;
    return new KernelShape(
        oneShotBlocks,
        twoShotBlocks,
        lamportBlocks,
        lamportLimit,
        lamport2MaxBytes,
        oneShotChunks == AUTOMATIC ? 16 : oneShotChunks,
        twoShotChunks == AUTOMATIC ? twoShotChunksFor(world) : twoShotChunks,
        oneShotWsMinBytes == AUTOMATIC_BYTES ? oneShotWsMinBytesFor(world) : oneShotWsMinBytes,
        twoShotWsMinBytes == AUTOMATIC_BYTES ? twoShotWsMinBytesFor(world) : twoShotWsMinBytes);
  }

  private static void checkRound(String name, long roundBytes) {
    if (roundBytes < MIN_GATHER_ROUND_BYTES
        || roundBytes % 16 != 0
        || roundBytes > MAX_GATHER_ROUND_BYTES) {
      throw new IllegalArgumentException(
          name
              + " must be a multiple of 16 between "
              + MIN_GATHER_ROUND_BYTES
              + " and "
              + MAX_GATHER_ROUND_BYTES
              + " (half a gather slot), got "
              + roundBytes);
    }
  }

  static void checkBlocks(String name, int blocks) {
    if (blocks < 1 || blocks > MAX_BLOCKS) {
      throw new IllegalArgumentException(
          name + " must be between 1 and " + MAX_BLOCKS + ", got " + blocks);
    }
  }

  public static CudaCommunicatorSettings defaults() {
    return new CudaCommunicatorSettings(
        true,
        true,
        DEFAULT_MAX_BYTES,
        DEFAULT_LAMPORT_MAX_BYTES,
        DEFAULT_LAMPORT2_MAX_BYTES,
        MAX_BLOCKS,
        MAX_BLOCKS,
        MAX_BLOCKS,
        AUTOMATIC,
        AUTOMATIC,
        AUTOMATIC_BYTES,
        AUTOMATIC_BYTES,
        DEFAULT_COPY_ENGINE_PIECE_BYTES,
        DEFAULT_GATHER_LL_MAX_BYTES,
        DEFAULT_GATHER_SINGLE_PASS_MAX_BYTES,
        DEFAULT_ALLGATHER_ROUND_BYTES,
        DEFAULT_REDUCESCATTER_ROUND_BYTES,
        true,
        DEFAULT_GATHER_BLOCKS,
        true,
        DEFAULT_ONESHOT_STREAM_MIN_BYTES,
        true,
        // measured slower than the spread kernel on H100 pairs (0.3-0.8 us at 4-64 tokens)
        false,
        true,
        true,
        FusedRowCopies.AUTOMATIC,
        Duration.ofMinutes(5),
        NO_BLOCK_LIMIT,
        HostPathSettings.defaults());
  }

  public static CudaCommunicatorSettings fromEnvironment() {
    return from(System.getenv());
  }

  /** Settings from these environment variables; unset ones keep their defaults. */
  public static CudaCommunicatorSettings from(Map<String, String> env) {
    CudaCommunicatorSettings d = defaults();
    long peerBufferBytes = number(env, "GPUCOMM_PEER_BUFFER_BYTES", d.maxBytes());
    return new CudaCommunicatorSettings(
        onOff(env, "GPUCOMM_NCCL"),
        onOff(env, "GPUCOMM_PEER_MEMORY"),
        peerBufferBytes,
        number(env, "GPUCOMM_LAMPORT_MAX_BYTES", Math.min(d.lamportMaxBytes(), peerBufferBytes)),
        number(env, "GPUCOMM_LAMPORT2_MAX_BYTES", Math.min(d.lamport2MaxBytes(), peerBufferBytes)),
        count(env, "GPUCOMM_ONESHOT_BLOCKS", d.oneShotBlocks()),
        count(env, "GPUCOMM_TWOSHOT_BLOCKS", d.twoShotBlocks()),
        count(env, "GPUCOMM_LAMPORT_BLOCKS", d.lamportBlocks()),
        count(env, "GPUCOMM_ONESHOT_CHUNKS", d.oneShotChunks()),
        count(env, "GPUCOMM_TWOSHOT_CHUNKS", d.twoShotChunks()),
        bytes(env, "GPUCOMM_ONESHOT_WS_MIN_BYTES", d.oneShotWsMinBytes()),
        bytes(env, "GPUCOMM_TWOSHOT_WS_MIN_BYTES", d.twoShotWsMinBytes()),
        number(env, "GPUCOMM_COPYENGINE_PIECE_BYTES", d.copyEnginePieceBytes()),
        number(env, "GPUCOMM_GATHER_LL_MAX_BYTES", Math.min(d.gatherLlMaxBytes(), peerBufferBytes)),
        number(env, "GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES", d.gatherSinglePassMaxBytes()),
        number(env, "GPUCOMM_ALLGATHER_ROUND_BYTES", d.allGatherRoundBytes()),
        number(env, "GPUCOMM_REDUCESCATTER_ROUND_BYTES", d.reduceScatterRoundBytes()),
        onOff(env, "GPUCOMM_GATHER_OVERLAP"),
        count(env, "GPUCOMM_GATHER_BLOCKS", d.gatherBlocks()),
        onOff(env, "GPUCOMM_PDL"),
        bytes(env, "GPUCOMM_ONESHOT_STREAM_MIN_BYTES", d.oneShotStreamMinBytes()),
        onOff(env, "GPUCOMM_FUSED_SPREAD"),
        onOff(env, "GPUCOMM_FUSED_CLUSTER", d.fusedClusterKernel()),
        onOff(env, "GPUCOMM_FUSED_WIDE_GRID"),
        onOff(env, "GPUCOMM_FUSED_OWN_ROWS"),
        rowCopies(env, "GPUCOMM_FUSED_ROW_COPIES"),
        Duration.ofSeconds(
            secondsOfWait(
                env, "GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS", d.rendezvousTimeout().toSeconds())),
        d.maxBlocks(),
        HostPathSettings.from(env));
  }

  /**
   * {@code auto} (the default) or a count of blocks a row, 1 to {@value FusedRowCopies#MAX_COPIES}.
   */
  private static int rowCopies(Map<String, String> env, String name) {
    String value = env.getOrDefault(name, "auto").trim();
    if (value.equals("auto")) {
      return FusedRowCopies.AUTOMATIC;
    }
    try {
      int copies = Integer.parseInt(value);
      if (copies >= 1 && copies <= FusedRowCopies.MAX_COPIES) {
        return copies;
      }
    } catch (NumberFormatException notANumber) {
      // refused below, as an out-of-range count is
    }
    throw new IllegalArgumentException(
        name + " must be auto or 1 to " + FusedRowCopies.MAX_COPIES + ", got '" + value + "'");
  }

  private static boolean onOff(Map<String, String> env, String name) {
    return onOff(env, name, true);
  }

  private static boolean onOff(Map<String, String> env, String name, boolean fallback) {
    String value = env.getOrDefault(name, fallback ? "on" : "off").trim();
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException(name + " must be on or off, got '" + value + "'");
    }
    return value.equals("on");
  }

  /** A size in bytes from the environment: a whole number, not negative. */
  private static long bytes(Map<String, String> env, String name, long fallback) {
    long value = number(env, name, fallback);
    if (env.containsKey(name) && value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, got " + value);
    }
    return value;
  }

  /** The longest rendezvous wait a setting may ask for: a job's timeout is bounded far below. */
  static final long MAX_WAIT_SECONDS = Duration.ofDays(30).toSeconds();

  /** A count from the environment, checked to fit an int before narrowing (2^32 + 1 is not 1). */
  private static int count(Map<String, String> env, String name, int fallback) {
    long value = number(env, name, fallback);
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          name
              + " must be within "
              + Integer.MIN_VALUE
              + ".."
              + Integer.MAX_VALUE
              + ", got "
              + value);
    }
    return (int) value;
  }

  private static long secondsOfWait(Map<String, String> env, String name, long fallback) {
    long value = number(env, name, fallback);
    if (value < 1 || value > MAX_WAIT_SECONDS) {
      throw new IllegalArgumentException(
          name + " must be from 1 to " + MAX_WAIT_SECONDS + " (30 days), got " + value);
    }
    return value;
  }

  /** A whole number from the environment, {@code fallback} when unset or blank. */
  static long number(Map<String, String> env, String name, long fallback) {
    String text = env.get(name);
    if (text == null || text.isBlank()) {
      return fallback;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got '" + text + "'");
    }
  }
}
