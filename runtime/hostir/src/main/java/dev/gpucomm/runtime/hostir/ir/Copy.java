package dev.gpucomm.runtime.hostir.ir;

/** Copies {@code in} into {@code out} (same size and type) on the current stream. */
public record Copy(Tensor out, Tensor in) implements Statement {
  public Copy {
    if (out.localElements() != in.localElements() || out.dtype() != in.dtype()) {
      throw new IllegalArgumentException(
          "Set needs tensors of one size and type: " + out.name() + " and " + in.name());
    }
  }
}
