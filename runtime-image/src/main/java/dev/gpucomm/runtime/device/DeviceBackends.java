package dev.gpucomm.runtime.device;

import dev.gpucomm.api.v1alpha1.DeviceKind;
import java.lang.reflect.InvocationTargetException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Finds the device backends of this build by class name, so that a build without the CUDA backend
 * (or a host without its native libraries) still runs on the CPU. Probing never throws: a backend
 * that is missing or fails to load reports zero devices and the reason.
 */
public final class DeviceBackends {
  private static final Map<DeviceKind, String> CLASS_NAMES =
      Map.of(
          DeviceKind.CPU, "dev.gpucomm.runtime.device.cpu.CpuBackend",
          DeviceKind.CUDA, "dev.gpucomm.runtime.device.cuda.CudaBackend");

  /** What probing a backend found: the backend (null when unusable), devices, and why not. */
  public record Probe(DeviceKind kind, DeviceBackend backend, int deviceCount, String reason) {
    public boolean usable() {
      return backend != null && deviceCount > 0;
    }
  }

  private final Map<DeviceKind, Probe> probes = new EnumMap<>(DeviceKind.class);

  /** Loads (once) and probes the backend of {@code kind}. Never throws. */
  public synchronized Probe probe(DeviceKind kind) {
    return probes.computeIfAbsent(kind, DeviceBackends::load);
  }

  private static Probe load(DeviceKind kind) {
    String className = CLASS_NAMES.get(kind);
    DeviceBackend backend;
    try {
      backend =
          (DeviceBackend)
              Class.forName(className)
                  .asSubclass(DeviceBackend.class)
                  .getConstructor()
                  .newInstance();
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
    String message = e.getMessage();
    return e.getClass().getSimpleName()
        + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
  }
}
