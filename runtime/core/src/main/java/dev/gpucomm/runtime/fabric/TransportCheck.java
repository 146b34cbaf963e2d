package dev.gpucomm.runtime.fabric;

import dev.gpucomm.api.v1alpha1.InterNodeTransport;
import dev.gpucomm.api.v1alpha1.IntraNodeTransport;
import dev.gpucomm.api.v1alpha1.NetworkExpectation;
import java.util.List;
import java.util.Optional;

/**
 * Holds what NCCL chose against what a job expects ({@code spec.network.expect}): every connection
 * of this rank to a GPU of its own host against {@code intraNode}, every other against {@code
 * interNode}.
 */
public final class TransportCheck {
  private TransportCheck() {}

  /**
   * Why the observation breaks the expectation, or empty when it holds.
   *
   * @param hostOfRank the host name of every rank, by rank
   */
  public static Optional<String> violation(
      NetworkExpectation expect, FabricObservation seen, int rank, List<String> hostOfRank) {
    IntraNodeTransport intra = orAny(expect.getIntraNode(), IntraNodeTransport.ANY);
    InterNodeTransport inter = orAny(expect.getInterNode(), InterNodeTransport.ANY);
    if (intra == IntraNodeTransport.ANY && inter == InterNodeTransport.ANY) {
      return Optional.empty();
    }
    if (!seen.known()) {
      return Optional.of(
          "rank %d: spec.network.expect cannot be checked: the transports are %s"
              .formatted(rank, seen.summary()));
    }
    for (PeerConnection connection : seen.connections()) {
      int peer = connection.fromRank() == rank ? connection.toRank() : connection.fromRank();
      boolean sameHost =
          peer < hostOfRank.size() && hostOfRank.get(peer).equals(hostOfRank.get(rank));
      String broken =
          sameHost ? brokenIntra(intra, connection, seen) : brokenInter(inter, connection);
      if (broken != null) {
        return Optional.of(
            "rank %d: spec.network.expect.%s, but NCCL connected ranks %d and %d (%s) via %s"
                .formatted(
                    rank,
                    broken,
                    connection.fromRank(),
                    connection.toRank(),
                    sameHost ? "same host" : "other hosts",
                    connection.detail()));
      }
    }
    return Optional.empty();
  }

  private static String brokenIntra(
      IntraNodeTransport expected, PeerConnection connection, FabricObservation seen) {
    TransportClass chosen = connection.transport();
    boolean holds =
        switch (expected) {
          case ANY -> true;
          case P2P -> chosen == TransportClass.P2P;
          case NVLINK -> chosen == TransportClass.P2P && seen.intraNodePaths().contains("NVL");
          case SHM -> chosen == TransportClass.SHM;
        };
    return holds ? null : "intraNode is " + expected.wireName();
  }

  private static String brokenInter(InterNodeTransport expected, PeerConnection connection) {
    TransportClass chosen = connection.transport();
    boolean holds =
        switch (expected) {
          case ANY -> true;
          case IB -> chosen == TransportClass.IB;
          case ROCE -> chosen == TransportClass.ROCE;
          case SOCKET -> chosen == TransportClass.SOCKET;
          case PLUGIN -> chosen == TransportClass.PLUGIN;
        };
    return holds ? null : "interNode is " + expected.wireName();
  }

  private static <T> T orAny(T value, T any) {
    return value == null ? any : value;
  }
}
