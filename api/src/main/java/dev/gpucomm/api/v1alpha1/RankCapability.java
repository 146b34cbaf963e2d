package dev.gpucomm.api.v1alpha1;

/**
 * The capabilities a rank container may add: what RDMA transports (InfiniBand, RoCE, EFA) need to
 * register memory, and nothing that would widen the container further.
 */
public enum RankCapability {
  IPC_LOCK,
  SYS_RESOURCE
}
