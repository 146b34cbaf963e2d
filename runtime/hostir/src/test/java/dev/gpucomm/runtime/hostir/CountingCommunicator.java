package dev.gpucomm.runtime.hostir;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.DeviceBuffer;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.testing.ForwardingCommunicator;
import java.util.concurrent.atomic.AtomicInteger;

/** A communicator that counts the calls it passes on, by kind (not reduce-scatters). */
public final class CountingCommunicator extends ForwardingCommunicator {
  public final AtomicInteger allReduces;
  public final AtomicInteger allGathers;
  public final AtomicInteger broadcasts;
  public final AtomicInteger sendReceives;
  public final AtomicInteger collectivePermutes;

  /** Counts into its own counters. */
  public CountingCommunicator(Communicator delegate) {
    this(
        delegate,
        new AtomicInteger(),
        new AtomicInteger(),
        new AtomicInteger(),
        new AtomicInteger(),
        new AtomicInteger());
  }

  /** Counts into the counters of {@code shared}, so that several communicators add up. */
  public CountingCommunicator(Communicator delegate, CountingCommunicator shared) {
    this(
        delegate,
        shared.allReduces,
        shared.allGathers,
        shared.broadcasts,
        shared.sendReceives,
        shared.collectivePermutes);
  }

  private CountingCommunicator(
      Communicator delegate,
      AtomicInteger allReduces,
      AtomicInteger allGathers,
      AtomicInteger broadcasts,
      AtomicInteger sendReceives,
      AtomicInteger collectivePermutes) {
    super(delegate);
    this.allReduces = allReduces;
    this.allGathers = allGathers;
    this.broadcasts = broadcasts;
    this.sendReceives = sendReceives;
    this.collectivePermutes = collectivePermutes;
  }

  @Override
  public void allReduce(
      Algorithm algorithm,
      DeviceBuffer input,
      DeviceBuffer output,
      long count,
      DType dtype,
      Stream stream) {
    allReduces.incrementAndGet();
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
    allGathers.incrementAndGet();
    real.allGather(algorithm, input, output, count, dtype, stream);
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
    broadcasts.incrementAndGet();
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
    sendReceives.incrementAndGet();
    real.sendReceive(send, sendTo, receive, receiveFrom, bytes, stream);
  }

  @Override
  public void collectivePermute(
      DeviceBuffer input, DeviceBuffer output, long count, DType dtype, Stream stream) {
    collectivePermutes.incrementAndGet();
    real.collectivePermute(input, output, count, dtype, stream);
  }

  /** Closes the real communicator too: the counting one stands in for it. */
  @Override
  public void close() {
    real.close();
  }

  @Override
  public void closeAfterFailure() {
    real.closeAfterFailure();
  }
}
