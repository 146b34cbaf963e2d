package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/**
 * One step of a collective permute: sends {@code input} to rank {@code sendPeer} and receives
 * {@code output} from rank {@code recvPeer}, as one grouped send/recv pair. When both peers are
 * this rank, the step is a local copy.
 */
public record CollectivePermute(
    int id,
    Tensor input,
    Tensor output,
    IndexExpr sendPeer,
    IndexExpr recvPeer,
    CommBackend backend)
    implements CollectiveCommunication {
  public CollectivePermute {
    if (input.localElements() != output.localElements() || input.dtype() != output.dtype()) {
      throw new IllegalArgumentException(
          "collective permute needs input and output of one size and type: "
              + input.name()
              + ", "
              + output.name());
    }
  }
}
