package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/** Copies rank {@code root}'s {@code input} into {@code output} on every rank. */
public record Broadcast(int id, Tensor input, Tensor output, IndexExpr root, CommBackend backend)
    implements CollectiveCommunication {
  public Broadcast {
    if (input.localElements() != output.localElements() || input.dtype() != output.dtype()) {
      throw new IllegalArgumentException(
          "broadcast needs input and output of one size and type: "
              + input.name()
              + ", "
              + output.name());
    }
  }
}
