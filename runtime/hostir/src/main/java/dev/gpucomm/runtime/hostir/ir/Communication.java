package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/**
 * A communication among the ranks of the program's team, posted on the current stream. Its number
 * names it for {@link Wait}; its backend says which transport carries it.
 */
public sealed interface Communication extends Statement
    permits CollectiveCommunication, P2PCommunication {
  int id();

  CommBackend backend();
}
