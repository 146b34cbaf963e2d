package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings and sizes of a peer-memory collective that every rank of a node must share (how a
 * slot is cut, which kernels run, the grid), compared through the store before any memory is
 * exchanged: ranks that differ would wait on flags the others never raise, or read bytes laid out
 * another way.
 */
final class NodeGeometry {
  private static final char NAME_END = '\t';
  private static final char ENTRY_END = '\n';
  private static final String UNSET = "(not published)";

  private final Map<String, String> valueByName;

  private NodeGeometry(Map<String, String> valueByName) {
    this.valueByName = valueByName;
  }

  /** A geometry of no entries; {@link #with} adds them in the order a mismatch is looked for. */
  static NodeGeometry empty() {
    return new NodeGeometry(new LinkedHashMap<>());
  }

  /**
   * This geometry with {@code name} (an environment variable, or what a size is) at {@code value}.
   */
  NodeGeometry with(String name, Object value) {
    Map<String, String> more = new LinkedHashMap<>(valueByName);
    more.put(name, String.valueOf(value));
    return new NodeGeometry(more);
  }

  /**
   * Publishes this rank's geometry under {@code keyPrefix} and reads every local rank's: the reason
   * to refuse, the same on every rank, or empty when all agree.
   */
  Optional<String> agree(
      KeyValueStore store, String keyPrefix, int localRank, int world, Duration timeout) {
    store.set(keyPrefix + "/geometry/" + localRank, encode());
    List<NodeGeometry> byLocalRank = new ArrayList<>();
    for (int rank = 0; rank < world; rank++) {
      byLocalRank.add(decode(store.get(keyPrefix + "/geometry/" + rank, timeout)));
    }
    return firstMismatch(byLocalRank);
  }

  /**
   * The first entry, in local rank 0's order, on which a rank differs from local rank 0 (the lowest
   * such rank), with both values; empty when every rank has the same geometry.
   */
  static Optional<String> firstMismatch(List<NodeGeometry> byLocalRank) {
    NodeGeometry first = byLocalRank.getFirst();
    for (int rank = 1; rank < byLocalRank.size(); rank++) {
      Map<String, String> other = byLocalRank.get(rank).valueByName;
      for (Map.Entry<String, String> entry : first.valueByName.entrySet()) {
        String theirs = other.getOrDefault(entry.getKey(), UNSET);
        if (!theirs.equals(entry.getValue())) {
          return Optional.of(mismatch(entry.getKey(), entry.getValue(), rank, theirs));
        }
      }
      for (Map.Entry<String, String> entry : other.entrySet()) {
        if (!first.valueByName.containsKey(entry.getKey())) {
          return Optional.of(mismatch(entry.getKey(), UNSET, rank, entry.getValue()));
        }
      }
    }
    return Optional.empty();
  }

  private static String mismatch(String name, String rankZeroValue, int rank, String value) {
    return "%s differs across the node's ranks: local rank 0 has %s, local rank %d has %s"
        .formatted(name, rankZeroValue, rank, value);
  }

  byte[] encode() {
    StringBuilder text = new StringBuilder();
    valueByName.forEach(
        (name, value) -> text.append(name).append(NAME_END).append(value).append(ENTRY_END));
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  static NodeGeometry decode(byte[] bytes) {
    Map<String, String> valueByName = new LinkedHashMap<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split(String.valueOf(ENTRY_END))) {
      int nameEnd = line.indexOf(NAME_END);
      if (nameEnd >= 0) {
        valueByName.put(line.substring(0, nameEnd), line.substring(nameEnd + 1));
      }
    }
    return new NodeGeometry(valueByName);
  }
}
