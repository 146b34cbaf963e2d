package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.testing.ForwardingCommunicator;

/**
 * A communicator with a bug planted in one all-reduce algorithm: after the real call it overwrites
 * one element of the output (or, with {@code skip}, does not run at all, leaving the output as it
 * was) — what a wrong kernel does.
 */
final class CorruptingCommunicator extends ForwardingCommunicator {
  private final Device device;
  private final Algorithm broken;
  private final long elementIndex;
  private final boolean skip;

  CorruptingCommunicator(
      Communicator real, Device device, Algorithm broken, long elementIndex, boolean skip) {
    super(real);
    this.device = device;
    this.broken = broken;
    this.elementIndex = elementIndex;
    this.skip = skip;
  }

  @Override
  public void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    if (algorithm == broken && skip) {
      return;
    }
    real.allReduce(algorithm, input, output, count, dtype, stream);
    if (algorithm == broken) {
      // 0x3f bytes: a plausible finite value that is not the sum.
      device.fill(output, elementIndex * dtype.bytes(), dtype.bytes(), (byte) 0x3f, stream);
    }
  }
}
