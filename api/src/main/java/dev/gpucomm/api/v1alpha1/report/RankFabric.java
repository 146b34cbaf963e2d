package dev.gpucomm.api.v1alpha1.report;

import java.util.List;
import java.util.Objects;

/**
 * What one rank saw of the fabric of one of its NCCL communicators: the transport classes of its
 * connections inside its node and to other nodes, the NICs and intra-node path types NCCL named,
 * and a one-line summary; or why nothing was recorded.
 *
 * @param communicator {@code world} (every rank) or {@code across-pods} (the ranks with one local
 *     rank, one per pod, that hierarchical all-reduce crosses pods on)
 * @param intraNode transport labels inside the node, e.g. {@code p2p}, {@code shm}
 * @param interNode transport labels between nodes, e.g. {@code ib}, {@code socket}
 * @param unknownReason empty when the transports were recorded
 */
public record RankFabric(
    String communicator,
    int rank,
    List<String> intraNode,
    List<String> interNode,
    List<String> nics,
    List<String> intraNodePaths,
    String summary,
    String unknownReason) {
  public RankFabric {
    Objects.requireNonNull(communicator, "communicator");
    intraNode = List.copyOf(intraNode);
    interNode = List.copyOf(interNode);
    nics = List.copyOf(nics);
    intraNodePaths = List.copyOf(intraNodePaths);
    summary = Objects.requireNonNullElse(summary, "");
    unknownReason = Objects.requireNonNullElse(unknownReason, "");
  }
}
