package dev.gpucomm.runtime.hostir.passes;

/** Settings of the passes that have any: how many worker streams assignStreams spreads over. */
public record PassOptions(int streams) {
  public PassOptions {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, got " + streams);
    }
  }
}
