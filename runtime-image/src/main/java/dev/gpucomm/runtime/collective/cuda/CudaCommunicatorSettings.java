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
 *       kernel (0 turns it off);
 *   <li>{@code GPUCOMM_ONESHOT_BLOCKS}, {@code GPUCOMM_TWOSHOT_BLOCKS}, {@code
 *       GPUCOMM_LAMPORT_BLOCKS}: the thread blocks each kernel runs (a fixed grid per algorithm, at
 *       most 160 and at most the GPU's multiprocessors);
 *   <li>{@code GPUCOMM_PIPELINE_CHUNKS}: most chunks a large one-shot or two-shot call is cut into,
 *       so that NVLink transfers and local reduction overlap (8);
 *   <li>{@code GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS}: how long to wait for peers at creation.
 * </ul>
 */
public record CudaCommunicatorSettings(
    boolean ncclEnabled,
    boolean enabled,
    long maxBytes,
    long lamportMaxBytes,
    int oneShotBlocks,
    int twoShotBlocks,
    int lamportBlocks,
    int pipelineChunks,
    Duration rendezvousTimeout) {
  /** Most blocks a kernel may use: the flag areas have one row per block. */
  public static final int MAX_BLOCKS = 160;

  /** Largest peer buffer: pipeline chunk numbers must fit 16 bits even with one block. */
  public static final long MAX_PEER_BUFFER_BYTES = 256L << 20;

  public static final long DEFAULT_MAX_BYTES = 64L << 20;
  public static final long DEFAULT_LAMPORT_MAX_BYTES = 1L << 20;

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
    checkBlocks("GPUCOMM_ONESHOT_BLOCKS", oneShotBlocks);
    checkBlocks("GPUCOMM_TWOSHOT_BLOCKS", twoShotBlocks);
    checkBlocks("GPUCOMM_LAMPORT_BLOCKS", lamportBlocks);
    if (pipelineChunks < 1 || pipelineChunks > KernelShape.MAX_PIPELINE_CHUNKS) {
      throw new IllegalArgumentException(
          "GPUCOMM_PIPELINE_CHUNKS must be between 1 and "
              + KernelShape.MAX_PIPELINE_CHUNKS
              + ", got "
              + pipelineChunks);
    }
  }

  /** The kernel shape these settings ask for. */
  public KernelShape kernelShape() {
    return new KernelShape(
        oneShotBlocks, twoShotBlocks, lamportBlocks, lamportMaxBytes, pipelineChunks);
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
        128,
        128,
        64,
        8,
        Duration.ofMinutes(5));
  }

  public static CudaCommunicatorSettings fromEnvironment() {
    return from(System.getenv());
  }

  /** Settings from these environment variables; unset ones keep their defaults. */
  public static CudaCommunicatorSettings from(Map<String, String> env) {
    CudaCommunicatorSettings d = defaults();
    return new CudaCommunicatorSettings(
        onOff(env, "GPUCOMM_NCCL"),
        onOff(env, "GPUCOMM_PEER_MEMORY"),
        number(env, "GPUCOMM_PEER_BUFFER_BYTES", d.maxBytes()),
        number(env, "GPUCOMM_LAMPORT_MAX_BYTES", d.lamportMaxBytes()),
        (int) number(env, "GPUCOMM_ONESHOT_BLOCKS", d.oneShotBlocks()),
        (int) number(env, "GPUCOMM_TWOSHOT_BLOCKS", d.twoShotBlocks()),
        (int) number(env, "GPUCOMM_LAMPORT_BLOCKS", d.lamportBlocks()),
        (int) number(env, "GPUCOMM_PIPELINE_CHUNKS", d.pipelineChunks()),
        Duration.ofSeconds(
            number(env, "GPUCOMM_RENDEZVOUS_TIMEOUT_SECONDS", d.rendezvousTimeout().toSeconds())));
  }

  private static boolean onOff(Map<String, String> env, String name) {
    String value = env.getOrDefault(name, "on").trim();
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException(name + " must be on or off, got '" + value + "'");
    }
    return value.equals("on");
  }

  private static long number(Map<String, String> env, String name, long fallback) {
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
