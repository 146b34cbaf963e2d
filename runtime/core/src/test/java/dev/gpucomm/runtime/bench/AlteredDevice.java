package dev.gpucomm.runtime.bench;

import dev.gpucomm.runtime.device.ComputeCapability;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.testing.ForwardingDevice;
import java.util.Optional;

/**
 * A rank's device that differs from the one it wraps in one respect: less memory (allocations above
 * a limit fail, as when full) or another compute capability (a GPU of another generation).
 */
final class AlteredDevice extends ForwardingDevice {
  private final long maxAllocationBytes;
  private final Optional<ComputeCapability> computeCapability;

  private AlteredDevice(
      Device real, long maxAllocationBytes, Optional<ComputeCapability> computeCapability) {
    super(real);
    this.maxAllocationBytes = maxAllocationBytes;
    this.computeCapability = computeCapability;
  }

  static AlteredDevice withMemoryLimit(Device real, long maxAllocationBytes) {
    return new AlteredDevice(real, maxAllocationBytes, real.computeCapability());
  }

  static AlteredDevice withComputeCapability(Device real, ComputeCapability computeCapability) {
    return new AlteredDevice(real, Long.MAX_VALUE, Optional.of(computeCapability));
  }

  @Override
  public DeviceBuffer allocate(long bytes) {
    if (bytes > maxAllocationBytes) {
      throw new IllegalStateException("out of memory: " + bytes + " bytes requested");
    }
    return real.allocate(bytes);
  }

  @Override
  public Optional<ComputeCapability> computeCapability() {
    return computeCapability;
  }
}
