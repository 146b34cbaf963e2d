package dev.gpucomm.runtime.hostir.ir;

/** A stream named by a host program: a worker stream by index, or a stream held in a variable. */
public sealed interface StreamRef permits StreamRef.Worker, StreamRef.Named {

  static Worker worker(IndexExpr index) {
    return new Worker(index);
  }

  static Named named(String name) {
    return new Named(name);
  }

  /**
   * Worker stream number {@code index} of the program's stream pool; the pool creates a stream the
   * first time an index is used and keeps it for every later run.
   */
  record Worker(IndexExpr index) implements StreamRef {
    @Override
    public String toString() {
      return "Stream " + index;
    }
  }

  /** The stream a {@link GetCurrentStream} stored in a variable (the program's main stream). */
  record Named(String name) implements StreamRef {
    public Named {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("stream variable needs a name");
      }
    }

    @Override
    public String toString() {
      return "Stream " + name;
    }
  }
}
