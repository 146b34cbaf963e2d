package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.collective.RankTopology;
import dev.gpucomm.runtime.fabric.FabricObservation;
import dev.gpucomm.runtime.heuristic.PodLink;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How pods reach each other, read from the transports NCCL chose for the communicator that
 * hierarchical all-reduce crosses pods on, and agreed by every rank: a rank that ran hierarchical
 * while a peer ran nccl would wait forever in its first call.
 */
final class AcrossPodsLink {
  private static final char SEPARATOR = '\n';

  private AcrossPodsLink() {}

  /**
   * The link one rank saw: a network when any of its cross-pod connections goes over one (a pod on
   * another host); a peer path when all go over P2P or shared memory (pods sharing a host, which
   * NCCL treats as one node); unknown when NCCL's log was not read or showed no connection.
   */
  static PodLink of(FabricObservation acrossPods) {
    if (!acrossPods.known()) {
      return PodLink.unknown("NCCL's transports " + acrossPods.summary());
    }
    if (!acrossPods.interNode().isEmpty()) {
      return PodLink.network(acrossPods.summary());
    }
    if (!acrossPods.intraNode().isEmpty()) {
      return PodLink.peer(acrossPods.summary());
    }
    return PodLink.unknown("NCCL's log shows no connection between pods");
  }

  /**
   * Publishes {@code own} under {@code keyPrefix} and returns the job's link, the same on every
   * rank: the first network link in rank order, else the first unknown one (naming its rank), else
   * a peer link when every rank saw one.
   */
  static PodLink agree(
      KeyValueStore store, String keyPrefix, RankTopology topology, PodLink own, Duration timeout) {
    store.set(keyPrefix + "/rank-" + topology.rank(), encode(own));
    PodLink firstUnknown = null;
    PodLink firstPeer = null;
    for (int rank = 0; rank < topology.worldSize(); rank++) {
      PodLink seen = decode(store.get(keyPrefix + "/rank-" + rank, timeout));
      switch (seen.kind()) {
        case NETWORK -> {
          return seen;
        }
        case UNKNOWN -> {
          if (firstUnknown == null) {
            firstUnknown = PodLink.unknown("rank " + rank + ": " + seen.seen());
          }
        }
        case PEER -> {
          if (firstPeer == null) {
            firstPeer = seen;
          }
        }
      }
    }
    return firstUnknown != null ? firstUnknown : firstPeer;
  }

  private static byte[] encode(PodLink link) {
    return (link.kind().name() + SEPARATOR + link.seen()).getBytes(StandardCharsets.UTF_8);
  }

  private static PodLink decode(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int separator = text.indexOf(SEPARATOR);
    return new PodLink(
        PodLink.Kind.valueOf(text.substring(0, separator)), text.substring(separator + 1));
  }
}
