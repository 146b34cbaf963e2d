package dev.gpucomm.runtime.fabric;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.report.RankIdentity;
import dev.gpucomm.runtime.collective.Communicator;
import dev.gpucomm.runtime.device.Device;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who each rank is (pod, node, host, GPU, NICs), published by every rank through the store and read
 * by rank 0, so that a report can name the node of a slow rank.
 */
public final class RankIdentities {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RankIdentities() {}

  /**
   * This rank's identity: pod and node from the downward API's variables when set (in a pod), else
   * none and the host name; GPU UUID and bus id from the device; the NICs its collective library
   * named.
   */
  public static RankIdentity local(
      int rank, Device device, Communicator communicator, Map<String, String> environment) {
    String host = LocalHost.name();
    String node = blankToNull(environment.get(EnvVars.NODE_NAME));
    return new RankIdentity(
        rank,
        blankToNull(environment.get(EnvVars.POD_NAME)),
        node == null ? host : node,
        host,
        device.uuid().orElse(null),
        device.pciBusId().orElse(null),
        List.copyOf(communicator.fabric().nics()));
  }

  /**
   * Publishes {@code own} under {@code key}; on rank 0 returns every rank's in rank order, on the
   * others only their own.
   */
  public static List<RankIdentity> gather(
      KeyValueStore store, String key, RankIdentity own, int worldSize, Duration timeout) {
    try {
      store.set(key + "/" + own.rank(), JSON.writeValueAsBytes(own));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    if (own.rank() != 0) {
      return List.of(own);
    }
    List<RankIdentity> identities = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      try {
        identities.add(JSON.readValue(store.get(key + "/" + rank, timeout), RankIdentity.class));
      } catch (IOException e) {
        throw new UncheckedIOException("rank " + rank + " sent an unreadable identity", e);
      }
    }
    return identities;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
