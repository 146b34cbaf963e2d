package dev.gpucomm.runtime.collective;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.runtime.FailureCause;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.cpu.CpuBackendConfig;
import java.lang.reflect.InvocationTargetException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the device backends of this build. The CPU backend is always there; the CUDA backend is
 * found by class name, so that a build without it (or a host without its native libraries) still
 * runs on the CPU. Probing never throws: a backend that is missing or fails to load reports zero
 * devices and the reason.
 */
public final class DeviceBackends {
  static final String CUDA_BACKEND = "dev.gpucomm.runtime.collective.cuda.CudaBackend";

  /** What probing a backend found: the backend (null when unusable), devices, and why not. */
  public record Probe(DeviceKind kind, DeviceBackend backend, int deviceCount, String reason) {
    public boolean usable() {
      return backend != null && deviceCount > 0;
    }
  }

  private final Map<DeviceKind, Probe> probes = new EnumMap<>(DeviceKind.class);
  private final String instanceName;
  private final String cudaBackendClass;

  /**
   * @param instanceName names this run's shared resources (the CPU backend's /dev/shm files), so
   *     that concurrent runs on one host do not collide
   */
  public DeviceBackends(String instanceName) {
    this(instanceName, CUDA_BACKEND);
  }

  /** Backends whose CUDA backend is the class named {@code cudaBackendClass}. */
  DeviceBackends(String instanceName, String cudaBackendClass) {
    this.instanceName = instanceName;
    this.cudaBackendClass = cudaBackendClass;
  }

  /** Backends for probing only (how many devices, which are usable). */
  public DeviceBackends() {
    this("gpucomm-probe");
  }

  /** Loads (once) and probes the backend of {@code kind}. Never throws. */
  public synchronized Probe probe(DeviceKind kind) {
    return probes.computeIfAbsent(kind, this::load);
  }

  /**
   * Refuses, before any rank starts, a setting in {@code env} that the ranks on {@code kind} would
   * refuse once their devices are up: a usage error naming the variable. A backend that is not part
   * of this build refuses nothing here (its ranks fail on the backend itself). Loads the backend
   * without touching its devices or native libraries.
   *
   * @throws UsageException naming the variable
   */
  public void requireValidSettings(DeviceKind kind, Map<String, String> env) {
    DeviceBackend backend;
    try {
      backend = instantiate(kind);
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return;
    }
    backend.requireValidSettings(env);
  }

  /**
   * The name the device of local rank {@code localRank} gives once opened; empty where the backend
   * is not usable here or cannot say. Never throws.
   */
  public Optional<String> deviceName(DeviceKind kind, int localRank) {
    Probe probe = probe(kind);
    return probe.usable() ? probe.backend().deviceName(localRank) : Optional.empty();
  }

  private DeviceBackend instantiate(DeviceKind kind) throws ReflectiveOperationException {
    return switch (kind) {
      case CPU -> new CpuBackend(CpuBackendConfig.defaults(instanceName));
      case CUDA ->
          Class.forName(cudaBackendClass)
              .asSubclass(DeviceBackend.class)
              .getConstructor()
              .newInstance();
    };
  }

  private Probe load(DeviceKind kind) {
    DeviceBackend backend;
    try {
      backend = instantiate(kind);
    } catch (ClassNotFoundException e) {
      return new Probe(kind, null, 0, "the " + kind + " backend is not part of this build");
    } catch (InvocationTargetException e) {
      return new Probe(
          kind, null, 0, "the " + kind + " backend failed to load: " + text(e.getCause()));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return new Probe(kind, null, 0, "the " + kind + " backend failed to load: " + text(e));
    }
    try {
      int count = backend.deviceCount();
      String reason = count > 0 ? "" : backend.unavailableReason();
      if (count == 0 && (reason == null || reason.isBlank())) {
        reason = "no devices";
      }
      return new Probe(kind, backend, count, reason);
    } catch (LinkageError | RuntimeException e) {
      return new Probe(kind, null, 0, "the " + kind + " backend cannot count devices: " + text(e));
    }
  }

  private static String text(Throwable e) {
    if (e == null) {
      return "unknown error";
    }
    return FailureCause.of(e).lines().findFirst().orElse("");
  }
}
