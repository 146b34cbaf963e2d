package dev.gpucomm.runtime.device.cpu;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the CPU backend: where shared-memory files go and how they are named, the size of a
 * communicator's staging buffer and channel slots, and how long device work waits for a peer.
 *
 * @param jobName part of every shared-memory file name, so that files of concurrent jobs differ
 * @param sharedMemoryDirectory where shareable buffers live: /dev/shm, or the temp directory
 * @param stagingBytes the per-rank staging area of a communicator: the largest message the one-shot
 *     and two-shot all-reduces move in one pass (larger ones take several), and the largest that
 *     the other direct collectives accept
 * @param channelSlotBytes size of one slot of a point-to-point channel (ring, send/receive); larger
 *     messages move in pieces of this size, {@link #CHANNEL_SLOTS} in flight per channel
 * @param waitTimeout how long device work waits for another rank (a barrier, a channel) or another
 *     stream before it fails naming what it waited for
 * @param rendezvousTimeout how long building a communicator waits for the other ranks' handles
 */
public record CpuBackendConfig(
    String jobName,
    Path sharedMemoryDirectory,
    long stagingBytes,
    int channelSlotBytes,
    Duration waitTimeout,
    Duration rendezvousTimeout) {

  /** Slots per channel: at least two are needed for a ring to make progress without deadlock. */
  public static final int CHANNEL_SLOTS = 4;

  public static final long DEFAULT_STAGING_BYTES = 64L << 20;
  public static final int DEFAULT_CHANNEL_SLOT_BYTES = 256 << 10;
  public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_RENDEZVOUS_TIMEOUT = Duration.ofMinutes(5);

  public CpuBackendConfig {
    Objects.requireNonNull(jobName, "jobName");
    Objects.requireNonNull(sharedMemoryDirectory, "sharedMemoryDirectory");
    Objects.requireNonNull(waitTimeout, "waitTimeout");
    Objects.requireNonNull(rendezvousTimeout, "rendezvousTimeout");
    jobName = jobName.replaceAll("[^A-Za-z0-9._-]", "_");
    if (jobName.isEmpty()) {
      throw new IllegalArgumentException("jobName must not be empty");
    }
    if (channelSlotBytes < 16 || channelSlotBytes % 16 != 0) {
      throw new IllegalArgumentException(
          "channelSlotBytes must be a positive multiple of 16, got " + channelSlotBytes);
    }
    if (stagingBytes % 16 != 0 || stagingBytes < (long) CHANNEL_SLOTS * channelSlotBytes) {
      throw new IllegalArgumentException(
          "stagingBytes must be a multiple of 16 that holds "
              + CHANNEL_SLOTS
              + " channel slots of "
              + channelSlotBytes
              + " bytes, got "
              + stagingBytes);
    }
    if (waitTimeout.isNegative() || waitTimeout.isZero()) {
      throw new IllegalArgumentException("waitTimeout must be positive, got " + waitTimeout);
    }
    if (rendezvousTimeout.isNegative() || rendezvousTimeout.isZero()) {
      throw new IllegalArgumentException(
          "rendezvousTimeout must be positive, got " + rendezvousTimeout);
    }
  }

  /** Defaults for a job: /dev/shm when it exists, 64 MiB staging, 256 KiB slots, 60 s waits. */
  public static CpuBackendConfig defaults(String jobName) {
    return new CpuBackendConfig(
        jobName,
        defaultSharedMemoryDirectory(),
        DEFAULT_STAGING_BYTES,
        DEFAULT_CHANNEL_SLOT_BYTES,
        DEFAULT_WAIT_TIMEOUT,
        DEFAULT_RENDEZVOUS_TIMEOUT);
  }

  /**
   * /dev/shm (memory-backed, shared by the processes of a pod) if writable, else java.io.tmpdir.
   */
  public static Path defaultSharedMemoryDirectory() {
    Path devShm = Path.of("/dev/shm");
    if (Files.isDirectory(devShm) && Files.isWritable(devShm)) {
      return devShm;
    }
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  public CpuBackendConfig withStagingBytes(long bytes) {
    return new CpuBackendConfig(
        jobName, sharedMemoryDirectory, bytes, channelSlotBytes, waitTimeout, rendezvousTimeout);
  }

  /** Sets both sizes at once, since the staging area must hold the channel slots. */
  public CpuBackendConfig withBufferSizes(long stagingBytes, int channelSlotBytes) {
    return new CpuBackendConfig(
        jobName,
        sharedMemoryDirectory,
        stagingBytes,
        channelSlotBytes,
        waitTimeout,
        rendezvousTimeout);
  }

  public CpuBackendConfig withWaitTimeout(Duration timeout) {
    return new CpuBackendConfig(
        jobName, sharedMemoryDirectory, stagingBytes, channelSlotBytes, timeout, rendezvousTimeout);
  }

  public CpuBackendConfig withRendezvousTimeout(Duration timeout) {
    return new CpuBackendConfig(
        jobName, sharedMemoryDirectory, stagingBytes, channelSlotBytes, waitTimeout, timeout);
  }

  public CpuBackendConfig withSharedMemoryDirectory(Path directory) {
    return new CpuBackendConfig(
        jobName, directory, stagingBytes, channelSlotBytes, waitTimeout, rendezvousTimeout);
  }
}
