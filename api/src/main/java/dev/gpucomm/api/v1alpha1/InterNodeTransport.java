package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The transport a job expects NCCL to take between nodes (pods). */
public enum InterNodeTransport {
  @JsonProperty("any")
  ANY("any"),
  /** NCCL's IB transport on InfiniBand ports. */
  @JsonProperty("ib")
  IB("ib"),
  /** NCCL's IB transport on RoCE (Ethernet) ports. */
  @JsonProperty("roce")
  ROCE("roce"),
  /** NCCL's TCP socket transport: set it on purpose, for clusters with no RDMA fabric. */
  @JsonProperty("socket")
  SOCKET("socket"),
  /** A network plugin (EFA through aws-ofi-nccl, and others). */
  @JsonProperty("plugin")
  PLUGIN("plugin");

  private final String wireName;

  InterNodeTransport(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  @Override
  public String toString() {
    return wireName;
  }
}
