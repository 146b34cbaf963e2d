package dev.gpucomm.runtime.testing;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.fabric.CommunicatorFabric;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.heuristic.PodLink;
import java.util.List;
import java.util.Set;

/**
 * A communicator that passes every call to a real one, for tests that change one behaviour of it.
 * Closing it leaves the real communicator to its owner.
 */
public abstract class ForwardingCommunicator implements Communicator {
  protected final Communicator real;

  protected ForwardingCommunicator(Communicator real) {
    this.real = real;
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
  public FabricObservation fabric() {
    return real.fabric();
  }

  @Override
  public List<CommunicatorFabric> fabrics() {
    return real.fabrics();
  }

  @Override
  public PodLink podLink() {
    return real.podLink();
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
  public long maxPeerMemoryBytes(Collective collective) {
    return real.maxPeerMemoryBytes(collective);
  }

  @Override
  public void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    real.allReduce(algorithm, input, output, count, dtype, stream);
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
