package dev.gpucomm.runtime.fabric;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one rank saw of the fabric its communicator uses: the transport of each peer connection its
 * collective library set up, the NICs it named, and the path type between the node's GPUs; or why
 * nothing could be seen (the CPU backend, NCCL's log taken over by the user). The NICs and paths
 * iterate in name order, so that every text made of them reads the same on every run.
 */
public record FabricObservation(
    List<PeerConnection> connections,
    Set<String> nics,
    Set<String> intraNodePaths,
    String unknownReason) {

  public FabricObservation {
    connections = List.copyOf(connections);
    nics = Collections.unmodifiableSortedSet(new TreeSet<>(nics));
    intraNodePaths = Collections.unmodifiableSortedSet(new TreeSet<>(intraNodePaths));
  }

  /** Nothing could be observed, for this reason. */
  public static FabricObservation unknown(String reason) {
    return new FabricObservation(List.of(), Set.of(), Set.of(), reason);
  }

  /** What NCCL's log says. */
  public static FabricObservation of(NcclTransportLog log) {
    return new FabricObservation(log.connections(), log.nics(), log.intraNodePaths(), "");
  }

  public boolean known() {
    return unknownReason.isEmpty();
  }

  /** The classes of the connections to GPUs of this rank's node. */
  public Set<TransportClass> intraNode() {
    return classes(true);
  }

  /** The classes of the connections to other nodes. */
  public Set<TransportClass> interNode() {
    return classes(false);
  }

  private Set<TransportClass> classes(boolean intraNode) {
    Set<TransportClass> classes = EnumSet.noneOf(TransportClass.class);
    for (PeerConnection connection : connections) {
      if (connection.transport().intraNode() == intraNode) {
        classes.add(connection.transport());
      }
    }
    return classes;
  }

  /** One line for logs and reports: {@code intra-node p2p (NVL); inter-node socket via eth0}. */
  public String summary() {
    if (!known()) {
      return "not recorded: " + unknownReason;
    }
    StringBuilder text = new StringBuilder();
    Set<TransportClass> intra = intraNode();
    Set<TransportClass> inter = interNode();
    if (intra.isEmpty() && inter.isEmpty()) {
      return "no peer connections (one rank)";
    }
    if (!intra.isEmpty()) {
      text.append("intra-node ").append(labels(intra));
      if (!intraNodePaths.isEmpty()) {
        text.append(" (").append(String.join(",", intraNodePaths)).append(")");
      }
    }
    if (!inter.isEmpty()) {
      if (!text.isEmpty()) {
        text.append("; ");
      }
      text.append("inter-node ").append(labels(inter));
      if (!nics.isEmpty()) {
        text.append(" via ").append(String.join(",", nics));
      }
    }
    return text.toString();
  }

  private static String labels(Set<TransportClass> classes) {
    return String.join(",", classes.stream().map(TransportClass::label).toList());
  }
}
