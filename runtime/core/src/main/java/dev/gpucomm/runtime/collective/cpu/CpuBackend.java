package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;

/**
 * The CPU backend: every rank gets a CPU "device" of its own, ranks of a node share memory through
 * files under /dev/shm, and collectives run the same one-shot, two-shot and ring algorithms as on
 * GPUs, so that everything above the device layer runs without one.
 */
public final class CpuBackend implements DeviceBackend {
  /** The environment variable naming the job (set in every rank's pod, see the design notes). */
  public static final String JOB_ENV = "GPUCOMM_JOB";

  private final CpuBackendConfig config;

  /**
   * The backend with default settings, its shared-memory files named after the job in {@value
   * #JOB_ENV} (or "local"): what {@code DeviceBackends} finds by class name.
   */
  public CpuBackend() {
    this(CpuBackendConfig.defaults(jobNameFromEnvironment()));
  }

  public CpuBackend(CpuBackendConfig config) {
    this.config = config;
  }

  private static String jobNameFromEnvironment() {
    String job = System.getenv(JOB_ENV);
    return job == null || job.isBlank() ? "local" : job;
  }

  public CpuBackendConfig config() {
    return config;
  }

  @Override
  public DeviceKind kind() {
    return DeviceKind.CPU;
  }

  /** Always 1: the CPU can stand in for a device of any local rank. */
  @Override
  public int deviceCount() {
    return 1;
  }

  @Override
  public String unavailableReason() {
    return "";
  }

  /** A new CPU device for the rank with this local rank; any local rank works. */
  @Override
  public CpuDevice open(int localRank) {
    return new CpuDevice(config, localRank);
  }

  @Override
  public Communicator createCommunicator(
      Device device, KeyValueStore store, RankTopology topology) {
    return CpuCommunicator.create(CpuDevice.of(device), store, topology);
  }

  /** CPU collectives run on host threads, not thread blocks: the limit leaves nothing to cap. */
  @Override
  public Communicator createCommunicator(
      Device device, KeyValueStore store, RankTopology topology, int maxBlocks) {
    if (maxBlocks < 1) {
      throw new IllegalArgumentException("maxBlocks must be at least 1, got " + maxBlocks);
    }
    return createCommunicator(device, store, topology);
  }
}
