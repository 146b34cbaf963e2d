package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.StreamMemoryOperations;
import dev.gpucomm.runtime.device.cpu.CpuDevice;
import java.util.Optional;

/**
 * Finds the stream memory operations of a device, which the IPC get protocol needs: the device's
 * own when it implements {@link StreamMemoryOperations}, kernels on the stream's worker on the CPU
 * backend, none otherwise (then IPC point-to-point transfers go through the communicator).
 */
public final class MemoryOperationsLookup {
  private MemoryOperationsLookup() {}

  public static Optional<StreamMemoryOperations> of(Device device) {
    if (device instanceof StreamMemoryOperations operations) {
      return Optional.of(operations);
    }
    if (device instanceof CpuDevice cpu) {
      return Optional.of(new CpuStreamMemoryOperations(cpu));
    }
    return Optional.empty();
  }
}
