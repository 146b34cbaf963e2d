package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/**
 * Gathers every rank's {@code input} into {@code output} in rank order: output holds team-size
 * times the input's elements.
 */
public record Allgather(int id, Tensor input, Tensor output, CommBackend backend)
    implements CollectiveCommunication {
  public Allgather {
    if (output.localElements() % input.localElements() != 0 || input.dtype() != output.dtype()) {
      throw new IllegalArgumentException(
          "all-gather output " + output.name() + " is not a whole number of " + input.name());
    }
  }
}
