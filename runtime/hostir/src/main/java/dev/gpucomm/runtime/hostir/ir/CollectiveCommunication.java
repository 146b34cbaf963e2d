package dev.gpucomm.runtime.hostir.ir;

/**
 * A communication in which every rank of the team reads {@code input} and writes {@code output}.
 */
public sealed interface CollectiveCommunication extends Communication
    permits AllReduce, Allgather, Broadcast, CollectivePermute {
  Tensor input();

  Tensor output();
}
