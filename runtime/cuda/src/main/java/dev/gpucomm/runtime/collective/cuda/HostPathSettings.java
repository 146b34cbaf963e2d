package dev.gpucomm.runtime.collective.cuda;

import java.nio.file.Path;
import java.util.Map;

/**
 * The host path: from {@code minBytes}, a {@code share} of a call's bytes, cut into {@code chunks},
 * travels GPU → pinned host memory → peer on the copy engines (the GPUs' PCIe links) while the rest
 * goes over NVLink. The PCIe links add bandwidth that NVLink alone does not have, so a large call
 * finishes sooner when a small share of it takes that way. The GPUs of a node share the host
 * memory's bandwidth, so the more ranks copy at once, the smaller the share that pays: on four
 * ranks the two-shot sends only part of its scatter that way, and on eight no share paid, so auto
 * leaves the path off there. The results pages hold the figures: {@code
 * bench/results/2026-11-22-2xH200-host-path/}, {@code
 * bench/results/2026-11-22-4xH200-host-path-twoshot/} and {@code
 * bench/results/2026-11-22-8xH200-tp8/}.
 *
 * <p>Environment: {@code GPUCOMM_HOST_PATH} is {@code auto} (the default: the one-shot on two ranks
 * of a node and the two-shot on four, where it paid in those studies, and there only when a trial
 * as the communicator is built finds it faster on this host: {@link HostPathTrial}), {@code on}
 * (also the two-shot on any other number of ranks of a node) or {@code off}; {@code
 * GPUCOMM_HOST_PATH_MIN_BYTES} (default 64 MiB), {@code GPUCOMM_HOST_PATH_SHARE} (a fraction at
 * most 0.5, for both kernels; default 0.06 for the one-shot and 0.08 for the two-shot, the best
 * shares those studies found), {@code GPUCOMM_HOST_PATH_CHUNKS} (1 to 16, default 2). The staging
 * files live in {@code /dev/shm}.
 */
public record HostPathSettings(
    Mode mode, long minBytes, double oneShotShare, double twoShotShare, int chunks, Path folder) {
  public static final long DEFAULT_MIN_BYTES = 64L << 20;
  public static final double DEFAULT_ONE_SHOT_SHARE = 0.06;
  public static final double DEFAULT_TWO_SHOT_SHARE = 0.08;
  public static final int DEFAULT_CHUNKS = 2;

  /** Every host chunk is a whole number of these bytes. */
  static final long ALIGNMENT = 256;

  /** Where the ranks' staging files live: memory-backed and shared by the ranks of a pod. */
  public static final Path DEFAULT_FOLDER = Path.of("/dev/shm");

  /** {@code GPUCOMM_HOST_PATH}. */
  public enum Mode {
    AUTO,
    ON,
    OFF
  }

  public HostPathSettings {
    if (mode == null) {
      throw new IllegalArgumentException("GPUCOMM_HOST_PATH must be auto, on or off");
    }
    if (minBytes < 0) {
      throw new IllegalArgumentException(
          "GPUCOMM_HOST_PATH_MIN_BYTES must not be negative, got " + minBytes);
    }
    for (double share : new double[] {oneShotShare, twoShotShare}) {
      if (!(share > 0 && share <= 0.5)) {
        throw new IllegalArgumentException(
            "GPUCOMM_HOST_PATH_SHARE must be a fraction above 0 and at most 0.5, got " + share);
      }
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
        Mode.AUTO,
        DEFAULT_MIN_BYTES,
        DEFAULT_ONE_SHOT_SHARE,
        DEFAULT_TWO_SHOT_SHARE,
        DEFAULT_CHUNKS,
        DEFAULT_FOLDER);
  }

  /** Settings from these environment variables; unset ones keep their defaults. */
  static HostPathSettings from(Map<String, String> env) {
    HostPathSettings d = defaults();
    String text = env.getOrDefault("GPUCOMM_HOST_PATH", "auto").trim();
    Mode mode =
        switch (text) {
          case "auto" -> Mode.AUTO;
          case "on" -> Mode.ON;
          case "off" -> Mode.OFF;
          default ->
              throw new IllegalArgumentException(
                  "GPUCOMM_HOST_PATH must be auto, on or off, got '" + text + "'");
        };
    String share = env.get("GPUCOMM_HOST_PATH_SHARE");
    return new HostPathSettings(
        mode,
        CudaCommunicatorSettings.number(env, "GPUCOMM_HOST_PATH_MIN_BYTES", d.minBytes()),
        fraction("GPUCOMM_HOST_PATH_SHARE", share, d.oneShotShare()),
        fraction("GPUCOMM_HOST_PATH_SHARE", share, d.twoShotShare()),
        (int) CudaCommunicatorSettings.number(env, "GPUCOMM_HOST_PATH_CHUNKS", d.chunks()),
        d.folder());
  }

  public boolean enabled() {
    return mode != Mode.OFF;
  }

  /**
   * Whether calls of {@code route} take the host path on a node of {@code world} ranks: the
   * one-shot's only on two ranks (its kernel reduces one peer's share); the two-shot's on four
   * ranks, or on any number when forced on.
   */
  boolean takes(HostPath.Route route, int world) {
    if (!route.runsOn(world)) {
      return false;
    }
    return switch (mode) {
      case OFF -> false;
      case AUTO -> route == HostPath.Route.ONE_SHOT || world == 4;
      case ON -> true;
    };
  }

  /**
   * Bytes of a call of {@code bytes} that take the host path along {@code route} on {@code world}
   * ranks: none where the route does not {@link #takes} it or below {@code minBytes}, else {@link
   * #shareOf}.
   */
  public long hostBytes(HostPath.Route route, long bytes, int world) {
    return !takes(route, world) || bytes < minBytes ? 0 : shareOf(route, bytes, world);
  }

  /**
   * The share of a call of {@code bytes}, whatever its size: equal parts (one per rank for the
   * two-shot) of equal chunks of whole 256-byte blocks, so that the NVLink part, which starts right
   * after it, starts on whole cache lines in the input, the output and the peers' receive areas.
   */
  public long shareOf(HostPath.Route route, long bytes, int world) {
    boolean oneShot = route == HostPath.Route.ONE_SHOT;
    long unit = ALIGNMENT * chunks * (oneShot ? 1 : world);
    return (long) Math.floor(bytes * (oneShot ? oneShotShare : twoShotShare) / unit) * unit;
  }

  /**
   * The most bytes any call of at most {@code maxBytes} stages in host memory, forced or not
   * ({@link #shareOf} grows with the call): what each rank stages; 0 when no call that large takes
   * the host path by default.
   */
  public long stagingBytes(long maxBytes) {
    if (!enabled() || maxBytes < minBytes) {
      return 0;
    }
    long unit = ALIGNMENT * chunks;
    return (long) Math.ceil(maxBytes * Math.max(oneShotShare, twoShotShare) / unit) * unit;
  }

  private static double fraction(String name, String text, double fallback) {
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
