package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.Closing;
import java.util.ArrayList;
import java.util.List;

/**
 * Which communicator a communication posted on a given stream goes through.
 *
 * <p>A communicator's peer-memory algorithms own one signal area, so two streams with collectives
 * of one communicator in flight at once can deadlock. {@link #perStream} therefore gives each
 * worker stream a communicator of its own, built on first use through a {@link CommunicatorFactory}
 * (named {@code <prefix>stream<i>}, the same on every rank because every rank runs the same
 * program); the main stream uses the rank's communicator. {@link #shared} uses one communicator
 * everywhere, for programs that post on a single stream.
 *
 * <p>Worker communicators can be limited to a number of thread blocks per kernel (the communication
 * side of an {@link SmPartition}); the main communicator never is.
 */
public final class StreamCommunicators implements AutoCloseable {
  private final Communicator main;
  private final CommunicatorFactory factory;
  private final String prefix;
  private final int workerMaxBlocks;
  private final List<Communicator> workers = new ArrayList<>();
  private boolean closed;

  private StreamCommunicators(
      Communicator main, CommunicatorFactory factory, String prefix, int workerMaxBlocks) {
    if (workerMaxBlocks < 0) {
      throw new IllegalArgumentException(
          "worker communicators' block limit must not be negative, got " + workerMaxBlocks);
    }
    this.main = main;
    this.factory = factory;
    this.prefix = prefix;
    this.workerMaxBlocks = workerMaxBlocks;
  }

  public static StreamCommunicators shared(Communicator communicator) {
    return new StreamCommunicators(communicator, null, "", CommunicatorFactory.UNLIMITED);
  }

  public static StreamCommunicators perStream(
      Communicator main, CommunicatorFactory factory, String prefix) {
    return perStream(main, factory, prefix, CommunicatorFactory.UNLIMITED);
  }

  /**
   * Worker communicators whose kernels launch at most {@code workerMaxBlocks} thread blocks each
   * ({@link CommunicatorFactory#UNLIMITED} for no limit).
   */
  public static StreamCommunicators perStream(
      Communicator main, CommunicatorFactory factory, String prefix, int workerMaxBlocks) {
    return new StreamCommunicators(main, factory, prefix, workerMaxBlocks);
  }

  public Communicator main() {
    return main;
  }

  /** The communicator of worker stream {@code index}; creates it (collectively) on first use. */
  public Communicator forWorker(int index) {
    if (closed) {
      throw new IllegalStateException("stream communicators are closed");
    }
    if (factory == null) {
      return main;
    }
    while (workers.size() <= index) {
      workers.add(factory.create(prefix + "stream" + workers.size(), workerMaxBlocks));
    }
    return workers.get(index);
  }

  /** How many communicators were built beyond the rank's own. */
  public int extraCommunicators() {
    return workers.size();
  }

  /** Closes the communicators this object built; the main one belongs to the caller. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = Closing.newestFirst(workers);
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Closes the communicators this object built after {@code failure}, without waiting for peers or
   * for collectives in flight ({@link Communicator#closeAfterFailure()}); what goes wrong in doing
   * so is added to {@code failure}. A later {@link #close()} does nothing.
   */
  public void closeAfterFailure(Throwable failure) {
    if (closed) {
      return;
    }
    closed = true;
    List<AutoCloseable> aborts =
        workers.stream().<AutoCloseable>map(worker -> worker::closeAfterFailure).toList();
    try {
      RuntimeException abortFailure = Closing.newestFirst(aborts);
      if (abortFailure != null) {
        failure.addSuppressed(abortFailure);
      }
    } catch (Error abortError) {
      failure.addSuppressed(abortError);
    }
  }
}
