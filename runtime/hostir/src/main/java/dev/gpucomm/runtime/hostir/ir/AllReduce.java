package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/** Sums {@code input} over the team into {@code output} on every rank. */
public record AllReduce(int id, Tensor input, Tensor output, CommBackend backend)
    implements CollectiveCommunication {
  public AllReduce {
    if (input.localElements() != output.localElements() || input.dtype() != output.dtype()) {
      throw new IllegalArgumentException(
          "all-reduce needs input and output of one size and type: "
              + input.name()
              + ", "
              + output.name());
    }
  }
}
