package dev.gpucomm.runtime.heuristic;

import java.util.Objects;

/**
 * How the ranks of different pods reach each other, as the communicator saw it: over a peer path of
 * one host (NVLink or PCIe peer-to-peer, shared memory), over a network, or not known.
 *
 * @param kind which of the three
 * @param seen the transport in the collective library's words ({@code intra-node p2p (NVL)}, {@code
 *     inter-node socket via eth0}), or why it is unknown
 */
public record PodLink(Kind kind, String seen) {
  /** The link of a query whose communicator did not say. */
  public static final PodLink NOT_OBSERVED = unknown("the communicator did not say");

  /** The kinds of link between pods that change what is worth running across them. */
  public enum Kind {
    /** A peer path of one host: a flat algorithm reaches every GPU directly. */
    PEER,
    /** A network (sockets, InfiniBand, RoCE, a network plugin). */
    NETWORK,
    /** Nothing was observed, or the ranks saw different things. */
    UNKNOWN
  }

  public PodLink {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(seen, "seen");
  }

  /** Pods that reach each other over a peer path of one host, named as {@code seen}. */
  public static PodLink peer(String seen) {
    return new PodLink(Kind.PEER, seen);
  }

  /** Pods that reach each other over a network, named as {@code seen}. */
  public static PodLink network(String seen) {
    return new PodLink(Kind.NETWORK, seen);
  }

  /** A link that is not known, for this reason. */
  public static PodLink unknown(String reason) {
    return new PodLink(Kind.UNKNOWN, reason);
  }
}
