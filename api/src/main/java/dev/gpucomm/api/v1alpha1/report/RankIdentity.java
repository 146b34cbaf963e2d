package dev.gpucomm.api.v1alpha1.report;

import java.util.List;

/**
 * Who one rank was: its pod, the node it ran on, its host name, its GPU (UUID and PCI bus id, null
 * on the CPU backend) and the network interfaces its traffic used (empty when unknown), so that a
 * slow figure can be traced to one machine, GPU or NIC.
 */
public record RankIdentity(
    int rank,
    String pod,
    String node,
    String host,
    String gpuUuid,
    String pciBusId,
    List<String> nics) {

  public RankIdentity {
    nics = nics == null ? List.of() : List.copyOf(nics);
  }

  /** The node when known, else the host name: what a reader looks for in the cluster. */
  public String where() {
    return node != null && !node.isBlank() ? node : host;
  }
}
