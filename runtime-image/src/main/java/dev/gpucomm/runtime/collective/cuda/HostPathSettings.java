package dev.gpucomm.runtime.collective.cuda;

import java.nio.file.Path;
import java.util.Map;

/**
 * The one-shot's host path on two ranks: from {@code minBytes}, a {@code share} of a call's bytes,
 * cut into {@code chunks}, travels GPU → pinned host memory → peer on the copy engines (the two
 * GPUs' PCIe links) while the rest goes over NVLink. The PCIe links add bandwidth that NVLink alone
 * does not have: on 2 × H200 both GPUs together moved 380–387 GB/s each way with 6–8 % of the bytes
 * through host memory, against 358 by SM stores over NVLink alone, and a 64 MiB all-reduce took 186
 * µs instead of 194 (32 MiB: slower, so the default starts at 64 MiB).
 *
 * <p>Environment: {@code GPUCOMM_HOST_PATH=off} turns it off; {@code GPUCOMM_HOST_PATH_MIN_BYTES}
 * (default 64 MiB), {@code GPUCOMM_HOST_PATH_SHARE} (a fraction, default 0.06, at most 0.5), {@code
 * GPUCOMM_HOST_PATH_CHUNKS} (1 to 16, default 2). The staging files live in {@code /dev/shm}.
 */
public record HostPathSettings(
    boolean enabled, long minBytes, double share, int chunks, Path folder) {
  public static final long DEFAULT_MIN_BYTES = 64L << 20;
  public static final double DEFAULT_SHARE = 0.06;
  public static final int DEFAULT_CHUNKS = 2;

  /** Every host chunk is a whole number of these bytes. */
  static final long ALIGNMENT = 256;

  /** Where the ranks' staging files live: memory-backed and shared by the ranks of a pod. */
  public static final Path DEFAULT_FOLDER = Path.of("/dev/shm");

  public HostPathSettings {
    if (minBytes < 0) {
      throw new IllegalArgumentException(
          "GPUCOMM_HOST_PATH_MIN_BYTES must not be negative, got " + minBytes);
    }
    if (!(share > 0 && share <= 0.5)) {
      throw new IllegalArgumentException(
          "GPUCOMM_HOST_PATH_SHARE must be a fraction above 0 and at most 0.5, got " + share);
    }
    if (folder == null) {
      throw new IllegalArgumentException("host path folder must be set");
    }
    if (chunks < 1 || chunks > PeerMemoryLayout.HOST_CHUNKS_MAX) {
      throw new IllegalArgumentException(
          "GPUCOMM_HOST_PATH_CHUNKS must be between 1 and "
              + PeerMemoryLayout.HOST_CHUNKS_MAX
              + ", got "
              + chunks);
    }
  }

  public static HostPathSettings defaults() {
    return new HostPathSettings(
        true, DEFAULT_MIN_BYTES, DEFAULT_SHARE, DEFAULT_CHUNKS, DEFAULT_FOLDER);
  }

  /** Settings from these environment variables; unset ones keep their defaults. */
  static HostPathSettings from(Map<String, String> env) {
    HostPathSettings d = defaults();
    String onOff = env.getOrDefault("GPUCOMM_HOST_PATH", "on").trim();
    if (!onOff.equals("on") && !onOff.equals("off")) {
      throw new IllegalArgumentException(
          "GPUCOMM_HOST_PATH must be on or off, got '" + onOff + "'");
    }
    return new HostPathSettings(
        onOff.equals("on"),
        CudaCommunicatorSettings.number(env, "GPUCOMM_HOST_PATH_MIN_BYTES", d.minBytes()),
        fraction(env, "GPUCOMM_HOST_PATH_SHARE", d.share()),
        (int) CudaCommunicatorSettings.number(env, "GPUCOMM_HOST_PATH_CHUNKS", d.chunks()),
        d.folder());
  }

  /**
   * Bytes of a call of {@code bytes} that take the host path: none below {@code minBytes}, else
   * {@link #shareOf}.
   */
  public long hostBytes(long bytes) {
    return !enabled || bytes < minBytes ? 0 : shareOf(bytes);
  }

  /**
   * The share of a call of {@code bytes}, whatever its size: equal chunks of whole 256-byte blocks,
   * so that the NVLink part, which starts right after it, starts on whole cache lines in the input,
   * the output and the peer's receive area.
   */
  public long shareOf(long bytes) {
    long unit = ALIGNMENT * chunks;
    return (long) Math.floor(bytes * share / unit) * unit;
  }

  /**
   * The most bytes any call of at most {@code maxBytes} sends by the host path, forced or not
   * ({@link #shareOf} grows with the call): what each rank stages in host memory; 0 when no call
   * that large takes the host path by default.
   */
  public long stagingBytes(long maxBytes) {
    return !enabled || maxBytes < minBytes ? 0 : shareOf(maxBytes);
  }

  private static double fraction(Map<String, String> env, String name, double fallback) {
    String text = env.get(name);
    if (text == null || text.isBlank()) {
      return fallback;
    }
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          name + " must be a fraction such as 0.06, got '" + text + "'");
    }
  }
}
