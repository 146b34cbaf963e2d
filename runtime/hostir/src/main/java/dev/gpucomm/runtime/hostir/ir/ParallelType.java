package dev.gpucomm.runtime.hostir.ir;

/** How an axis of a tensor is spread: not at all, over the loop's streams, or over the ranks. */
public enum ParallelType {
  /** An ordinary axis, allocated in full on every rank. */
  SERIAL("S"),
  /**
   * The axis a stream-parallel loop iterates over: allocated in full, one chunk per iteration, so
   * that {@link ShardByStream} can select a chunk without copying.
   */
  STREAM("streamIdx"),
  /** The axis spread over the ranks of the team: each rank allocates one slice of extent 1. */
  DEVICE("deviceIdx.x");

  private final String printed;

  ParallelType(String printed) {
    this.printed = printed;
  }

  /** The name the printer uses, as nvFuser writes it. */
  public String printed() {
    return printed;
  }
}
