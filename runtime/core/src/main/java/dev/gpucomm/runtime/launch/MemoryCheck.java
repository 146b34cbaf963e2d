package dev.gpucomm.runtime.launch;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.JobMemory;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import dev.gpucomm.runtime.numeric.Saturating;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.workload.RankMemory;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Refuses, before any rank allocates, a job whose buffers do not fit ({@link RankMemory}: a sweep's
 * largest point, a fabric probe's buffers, a program's buffers): in the host's available memory for
 * the ranks that share it, or in a device's free memory. A job past the memory would otherwise push
 * the host into swapping or the out-of-memory killer, and fail late and unclearly.
 */
public final class MemoryCheck {
  private static final Path MEMINFO = Path.of("/proc/meminfo");

  private MemoryCheck() {}

  /**
   * Throws when {@code ranksOnHost} ranks, each holding {@code perRankBytes} of host memory for the
   * job's buffers and {@code perRankProcessBytes} for its own process, need more than {@code
   * availableBytes}. The message names the buffers when they alone do not fit, else the processes:
   * a world of thousands of ranks of a tiny sweep is refused as firmly as one huge message. Sums
   * and products saturate, so no size wraps around into one that fits.
   */
  public static void requireHostRoom(
      String source,
      RankMemory need,
      long perRankBytes,
      long perRankProcessBytes,
      int ranksOnHost,
      long availableBytes) {
    long buffers = Saturating.product(perRankBytes, ranksOnHost);
    if (buffers > availableBytes) {
      throw new UsageException(
          "%s: %s needs %s of host memory per rank, %s for the %s on this host, and %s is available"
              .formatted(
                  source,
                  need.what(),
                  gib(perRankBytes),
                  gib(buffers),
                  HumanUnits.count(ranksOnHost, "rank"),
                  gib(availableBytes)));
    }
    long total = Saturating.product(Saturating.sum(perRankBytes, perRankProcessBytes), ranksOnHost);
    if (total > availableBytes) {
      throw new UsageException(
          "%s: the %s on this host need %s of host memory, each rank's process (about %s) with its buffers (%s), and %s is available"
              .formatted(
                  source,
                  HumanUnits.count(ranksOnHost, "rank"),
                  gib(total),
                  gib(perRankProcessBytes),
                  gib(perRankBytes),
                  gib(availableBytes)));
    }
  }

  /**
   * What a rank's own process takes beside the job's buffers: a JVM with the runtime loaded
   * measured 170-210 MB resident on the CPU backend; rounded up, so that a world of hundreds of
   * CUDA ranks (CPU ranks are bounded by the host's CPUs first) is refused before it starts them
   * rather than after it has filled the host.
   */
  static final long RANK_PROCESS_BYTES = 256L << 20;

  /**
   * Throws when {@code ranksOnHost} ranks of {@code job} on {@code device} do not fit in this
   * host's available memory (on the CPU backend the "device" buffers are host memory too); a host
   * that does not say what is available is not checked.
   */
  public static void requireRoomForRanks(
      String source, CommJob job, DeviceKind device, int ranksOnHost) {
    RankMemory need;
    try {
      need = JobMemory.of(job, device);
    } catch (UsageException e) {
      throw new UsageException(source + ": " + e.getMessage(), e);
    }
    hostAvailableBytes()
        .ifPresent(
            available ->
                requireHostRoom(
                    source,
                    need,
                    device == DeviceKind.CPU ? need.hostBytesWithDevice() : need.hostBytes(),
                    RANK_PROCESS_BYTES,
                    ranksOnHost,
                    available));
  }

  /** Throws when one rank's device buffers need more than the device has free. */
  public static void requireDeviceRoom(
      String source, RankMemory need, int rank, String deviceName, long freeBytes) {
    if (need.deviceBytes() > freeBytes) {
      throw new UsageException(
          "%s: %s needs %s of device memory on rank %d, and its device (%s) has %s free"
              .formatted(
                  source, need.what(), gib(need.deviceBytes()), rank, deviceName, gib(freeBytes)));
    }
  }

  /** The host's MemAvailable, when the system says (Linux's /proc/meminfo). */
  public static OptionalLong hostAvailableBytes() {
    String text;
    try {
      text = BoundedFile.readText(MEMINFO, 64 << 10);
    } catch (UnreadableFileException e) {
      return OptionalLong.empty();
    }
    return availableIn(text);
  }

  /** MemAvailable of a /proc/meminfo text, in bytes. */
  static OptionalLong availableIn(String meminfo) {
    for (String line : meminfo.split("\n")) {
      if (line.startsWith("MemAvailable:")) {
        String[] words = line.substring("MemAvailable:".length()).trim().split("\\s+");
        try {
          return OptionalLong.of(Long.parseLong(words[0]) * 1024);
        } catch (NumberFormatException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }

  private static String gib(long bytes) {
    return HumanUnits.binaryBytes(bytes);
  }
}
