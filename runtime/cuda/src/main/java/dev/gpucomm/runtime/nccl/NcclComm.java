package dev.gpucomm.runtime.nccl;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One NCCL communicator (ncclComm_t), owned: closing destroys it. Buffers and streams are raw CUDA
 * addresses and CUstream handles, so this class depends on no device backend.
 */
public final class NcclComm implements AutoCloseable {
  private final NcclApi api;
  private final MemorySegment comm;
  private final int rank;
  private final int ranks;
  private final AtomicBoolean closed = new AtomicBoolean();

  NcclComm(NcclApi api, MemorySegment comm, int rank, int ranks) {
    this.api = api;
    this.comm = comm;
    this.rank = rank;
    this.ranks = ranks;
  }

  public int rank() {
    return rank;
  }

  public int ranks() {
    return ranks;
  }

  public void allReduce(
      long send, long recv, long count, int dataType, int op, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.allReduce.invokeExact(
                  MemorySegment.ofAddress(send),
                  MemorySegment.ofAddress(recv),
                  count,
                  dataType,
                  op,
                  comm,
                  stream),
          "ncclAllReduce",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** {@code sendCount} elements from every rank, gathered in rank order into {@code recv}. */
  public void allGather(long send, long recv, long sendCount, int dataType, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.allGather.invokeExact(
                  MemorySegment.ofAddress(send),
                  MemorySegment.ofAddress(recv),
                  sendCount,
                  dataType,
                  comm,
                  stream),
          "ncclAllGather",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Reduces {@code recvCount * ranks} elements and leaves this rank's block in {@code recv}. */
  public void reduceScatter(
      long send, long recv, long recvCount, int dataType, int op, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.reduceScatter.invokeExact(
                  MemorySegment.ofAddress(send),
                  MemorySegment.ofAddress(recv),
                  recvCount,
                  dataType,
                  op,
                  comm,
                  stream),
          "ncclReduceScatter",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  public void broadcast(
      long send, long recv, long count, int dataType, int root, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.broadcast.invokeExact(
                  MemorySegment.ofAddress(send),
                  MemorySegment.ofAddress(recv),
                  count,
                  dataType,
                  root,
                  comm,
                  stream),
          "ncclBroadcast",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  public void send(long buffer, long count, int dataType, int peer, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.send.invokeExact(
                  MemorySegment.ofAddress(buffer), count, dataType, peer, comm, stream),
          "ncclSend",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  public void recv(long buffer, long count, int dataType, int peer, MemorySegment stream) {
    checkOpen();
    try {
      api.check(
          (int)
              api.recv.invokeExact(
                  MemorySegment.ofAddress(buffer), count, dataType, peer, comm, stream),
          "ncclRecv",
          comm);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Splits this communicator: every rank of it calls this together, and the ranks passing the same
   * {@code color} form one new communicator in which they are ordered by {@code key}. The caller
   * owns the new communicator and closes it before this one.
   *
   * @param ranksOfColor how many ranks pass this rank's color (the new communicator's size)
   * @param rankInColor this rank's place among them, by {@code key}
   */
  public NcclComm split(int color, int key, int rankInColor, int ranksOfColor) {
    checkOpen();
    return new NcclComm(api, api.split(comm, color, key), rankInColor, ranksOfColor);
  }

  public void groupStart() {
    api.groupStart();
  }

  public void groupEnd() {
    api.groupEnd();
  }

  /** Tears the communicator down without waiting for peers (after a failure). */
  public void abort() {
    if (closed.compareAndSet(false, true)) {
      api.abort(comm);
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("NCCL communicator of rank " + rank + " is closed");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      api.destroy(comm);
    }
  }

  @Override
  public String toString() {
    return "NCCL communicator rank " + rank + " of " + ranks;
  }
}
