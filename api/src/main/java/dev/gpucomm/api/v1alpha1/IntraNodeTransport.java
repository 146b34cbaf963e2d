package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The transport a job expects NCCL to take between the GPUs of one node (pod). */
public enum IntraNodeTransport {
  @JsonProperty("any")
  ANY("any"),
  /** Peer-to-peer over NVLink (NCCL's topology search found NVLink between the GPUs). */
  @JsonProperty("nvlink")
  NVLINK("nvlink"),
  /** Peer-to-peer over NVLink or PCIe. */
  @JsonProperty("p2p")
  P2P("p2p"),
  /** Through host shared memory. */
  @JsonProperty("shm")
  SHM("shm");

  private final String wireName;

  IntraNodeTransport(String wireName) {
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
