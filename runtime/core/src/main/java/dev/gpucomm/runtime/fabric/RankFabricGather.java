package dev.gpucomm.runtime.fabric;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.report.RankFabric;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Brings every rank's transports, per communicator, to rank 0 for the report's fabric section: each
 * rank publishes its own as JSON under a key of its rank, and rank 0 reads them all.
 */
public final class RankFabricGather {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<List<RankFabric>> LIST = new TypeReference<>() {};

  private RankFabricGather() {}

  /** The report's view of what {@code rank} saw of one communicator. */
  public static RankFabric of(CommunicatorFabric fabric, int rank) {
    FabricObservation seen = fabric.observation();
    return new RankFabric(
        fabric.communicator(),
        rank,
        seen.intraNode().stream().map(TransportClass::label).sorted().toList(),
        seen.interNode().stream().map(TransportClass::label).sorted().toList(),
        List.copyOf(seen.nics()),
        List.copyOf(seen.intraNodePaths()),
        seen.summary(),
        seen.unknownReason());
  }

  /**
   * Publishes this rank's {@code own} fabrics under {@code keyPrefix}; on rank 0 returns every
   * rank's, in rank order and then in each rank's order of communicators (empty on the others).
   * Every rank calls it, also one with nothing to publish (an empty list).
   */
  public static List<RankFabric> gather(
      List<CommunicatorFabric> own,
      KeyValueStore store,
      String keyPrefix,
      int rank,
      int worldSize,
      Duration timeout) {
    List<RankFabric> mine = own.stream().map(fabric -> of(fabric, rank)).toList();
    try {
      store.set(
          keyPrefix + "/rank-" + rank,
          MAPPER.writeValueAsString(mine).getBytes(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not encode the fabric of rank " + rank, e);
    }
    if (rank != 0) {
      return List.of();
    }
    List<RankFabric> all = new ArrayList<>();
    for (int peer = 0; peer < worldSize; peer++) {
      String json =
          new String(store.get(keyPrefix + "/rank-" + peer, timeout), StandardCharsets.UTF_8);
      try {
        all.addAll(MAPPER.readValue(json, LIST));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("rank " + peer + " published an unreadable fabric", e);
      }
    }
    return List.copyOf(all);
  }
}
