package dev.gpucomm.runtime.hostir.ir;

/**
 * Makes {@code out} a view of chunk {@code index} of {@code in} along its stream axis, which must
 * be its outermost allocated axis so that the chunk is contiguous: no memory is allocated or
 * copied.
 */
public record ShardByStream(Tensor out, Tensor in, IndexExpr index) implements Statement {
  public ShardByStream {
    if (!in.streamParallelOutermost()) {
      throw new IllegalArgumentException(
          "ShardByStream needs " + in.name() + " to have its stream axis outermost: " + in);
    }
    if (out.memoryType() != MemoryType.LOCAL) {
      throw new IllegalArgumentException("a shard is a view: " + out.name() + " must be local");
    }
    long chunks = in.axes().get(in.streamAxis()).extent();
    if (out.localElements() * chunks != in.localElements() || out.dtype() != in.dtype()) {
      throw new IllegalArgumentException(
          out.name() + " is not one of " + chunks + " chunks of " + in.name());
    }
  }
}
