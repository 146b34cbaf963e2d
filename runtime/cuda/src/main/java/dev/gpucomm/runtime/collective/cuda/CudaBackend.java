package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.DeviceBackend;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.util.Map;
import java.util.Optional;

/**
 * The NVIDIA GPU backend: one GPU per rank process, chosen by the rank's local rank among the GPUs
 * this process sees (after CUDA_VISIBLE_DEVICES).
 */
public final class CudaBackend implements DeviceBackend {
  /** What the driver probe found: device count, and why it is 0 when it is. */
  record Probe(int devices, String reason) {}

  private volatile Probe probe;

  @Override
  public DeviceKind kind() {
    return DeviceKind.CUDA;
  }

  @Override
  public int deviceCount() {
    return probe().devices();
  }

  @Override
  public String unavailableReason() {
    return probe().reason();
  }

  private Probe probe() {
    Probe result = probe;
    if (result == null) {
      result = runProbe();
      probe = result;
    }
    return result;
  }

  private static Probe runProbe() {
    try {
      CudaDriverApi api = CudaDriverApi.get();
      int init = api.init();
      if (init != 0) {
        return new Probe(0, "cuInit failed: " + api.errorName(init));
      }
      int count = api.deviceCountOrError();
      if (count < 0) {
        return new Probe(0, "cuDeviceGetCount failed: " + api.errorName(-count));
      }
      if (count == 0) {
        return new Probe(0, "the NVIDIA driver reports no GPUs");
      }
      return new Probe(count, "");
    } catch (Throwable t) {
      // Never throw from detection: a host without a usable driver simply has no CUDA devices.
      return new Probe(0, t.getMessage() == null ? t.toString() : t.getMessage());
    }
  }

  /** The communicator's settings, read as each rank reads them: no device, no driver call. */
  @Override
  public void requireValidSettings(Map<String, String> env) {
    try {
      CudaCommunicatorSettings.from(env);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  @Override
  public Optional<String> deviceName(int localRank) {
    try {
      int count = deviceCount();
      if (count == 0) {
        return Optional.empty();
      }
      int ordinal = visibleOrdinal(localRank, count, System.getenv("CUDA_VISIBLE_DEVICES"));
      return Optional.of(CudaDevice.nameOf(CudaDriverApi.get(), ordinal));
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty(); // the rank that opens it says why
    }
  }

  @Override
  public Device open(int localRank) {
    int count = deviceCount();
    if (count == 0) {
      throw new IllegalStateException("no CUDA device: " + unavailableReason());
    }
    int ordinal = visibleOrdinal(localRank, count, System.getenv("CUDA_VISIBLE_DEVICES"));
    return CudaDevice.open(CudaDriverApi.get(), ordinal);
  }

  /**
   * The GPU a rank opens. Two ranks on one GPU are refused rather than wrapped around: NCCL refuses
   * them anyway (with a less helpful error), and the peer-memory kernels would time a GPU talking
   * to itself. In a pod this means the pod was given fewer GPUs than ranksPerPod.
   */
  static int visibleOrdinal(int ordinal, int visible, String visibleDevices) {
    if (ordinal < 0) {
      throw new IllegalArgumentException("device ordinal must not be negative, got " + ordinal);
    }
    if (ordinal >= visible) {
      // the job's or the pod's setup, not a fault of this host: said as a usage error
      throw new UsageException(
          "GPU "
              + ordinal
              + " is not visible: this process sees "
              + visible
              + (visible == 1 ? " GPU" : " GPUs")
              + (visibleDevices == null ? "" : " (CUDA_VISIBLE_DEVICES=" + visibleDevices + ")")
              + "; every rank needs its own GPU, so give the pod at least spec.ranksPerPod GPUs");
    }
    return ordinal;
  }

  @Override
  public Communicator createCommunicator(
      Device device, KeyValueStore store, RankTopology topology) {
    return CudaCommunicator.create(
        CudaDevice.cast(device, CudaDevice.class),
        store,
        topology,
        CudaCommunicatorSettings.fromEnvironment());
  }

  @Override
  public Communicator createCommunicator(
      Device device, KeyValueStore store, RankTopology topology, int maxBlocks) {
    return CudaCommunicator.create(
        CudaDevice.cast(device, CudaDevice.class),
        store,
        topology,
        CudaCommunicatorSettings.fromEnvironment().withMaxBlocks(maxBlocks));
  }
}
