package dev.gpucomm.runtime.hostir.ir;

/**
 * Gives {@code tensor} device memory. The interpreter allocates once per program instance, not per
 * run: an Allocate inside loops gets one buffer per combination of the enclosing loop indices, so
 * that iterations running concurrently on different streams never share a buffer.
 */
public record Allocate(Tensor tensor) implements Statement {
  public Allocate {
    if (tensor.memoryType() != MemoryType.GLOBAL) {
      throw new IllegalArgumentException("only global tensors are allocated: " + tensor.name());
    }
  }
}
