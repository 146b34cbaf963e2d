package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import java.util.Set;

/**
 * A communicator with a bug planted in one all-reduce algorithm: after the real call it overwrites
 * one element of the output (or, with {@code skip}, does not run at all, leaving the output as it
 * was) — what a wrong kernel does.
 */
final class CorruptingCommunicator implements Communicator {
  private final Communicator real;
  private final Device device;
  private final Algorithm broken;
  private final long elementIndex;
  private final boolean skip;

  CorruptingCommunicator(
      Communicator real, Device device, Algorithm broken, long elementIndex, boolean skip) {
    this.real = real;
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

  @Override
  public RankTopology topology() {
    return real.topology();
  }

  @Override
  public Set<Algorithm> allReduceAlgorithms() {
    return real.allReduceAlgorithms();
  }

  @Override
  public Set<Algorithm> algorithms(Collective collective) {
    return real.algorithms(collective);
  }

  @Override
  public String unavailableReason() {
    return real.unavailableReason();
  }

  @Override
  public long maxPeerMemoryBytes() {
    return real.maxPeerMemoryBytes();
  }

  @Override
  public void allGather(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    real.allGather(algorithm, input, output, count, dtype, stream);
  }

  @Override
  public void reduceScatter(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    real.reduceScatter(algorithm, input, output, count, dtype, stream);
  }

  @Override
  public void broadcast(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      int root,
      Stream stream) {
    real.broadcast(algorithm, input, output, count, dtype, root, stream);
  }

  @Override
  public void sendReceive(
      DeviceBuffer send,
      int sendTo,
      DeviceBuffer receive,
      int receiveFrom,
      long bytes,
      Stream stream) {
    real.sendReceive(send, sendTo, receive, receiveFrom, bytes, stream);
  }

  @Override
  public void collectivePermute(
      DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream) {
    real.collectivePermute(input, output, count, dtype, stream);
  }

  @Override
  public void close() {
    // The real communicator is closed by its owner.
  }
}
