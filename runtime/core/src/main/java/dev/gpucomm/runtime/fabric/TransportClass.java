package dev.gpucomm.runtime.fabric;

import java.util.Locale;

/** How NCCL moves bytes between two ranks, as its connection log names the transport. */
public enum TransportClass {
  /** CUDA peer-to-peer between GPUs of one node: NVLink or PCIe. */
  P2P,
  /** Through host shared memory, between GPUs of one node without peer access. */
  SHM,
  /** InfiniBand verbs (NCCL's IB transport on an InfiniBand port). */
  IB,
  /** InfiniBand verbs over Ethernet (NCCL's IB transport on a RoCE port). */
  ROCE,
  /** TCP sockets: NCCL's fallback between nodes. */
  SOCKET,
  /** A network plugin other than NCCL's own (EFA through aws-ofi-nccl, and others). */
  PLUGIN,
  /** NCCL's collective network (SHARP and the like). */
  COLLNET;

  /** Whether the transport connects GPUs of one node (P2P, SHM) rather than nodes. */
  public boolean intraNode() {
    return this == P2P || this == SHM;
  }

  /** The lower-case name used in reports and in {@code spec.network.expect}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
