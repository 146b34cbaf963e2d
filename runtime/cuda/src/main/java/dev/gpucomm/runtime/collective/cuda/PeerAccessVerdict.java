package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.runtime.rendezvous.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the peer-memory algorithms can run, decided identically on every rank of a node from each
 * rank's own result of the IPC write/read check: one failing rank disables them for all.
 */
public record PeerAccessVerdict(boolean available, String reason) {
  private static final String OK = "ok";
  private static final String FAILED = "failed:";

  public static PeerAccessVerdict usable() {
    return new PeerAccessVerdict(true, "");
  }

  public static PeerAccessVerdict unavailable(String reason) {
    return new PeerAccessVerdict(false, reason);
  }

  /** The text one rank publishes through the store. */
  public String encode() {
    return available ? OK : FAILED + reason;
  }

  /**
   * Publishes this rank's verdict under {@code keyPrefix} and combines everyone's: every rank of
   * the node calls this and gets the same answer.
   */
  public static PeerAccessVerdict agree(
      KeyValueStore store,
      String keyPrefix,
      int localRank,
      int world,
      PeerAccessVerdict own,
      Duration timeout) {
    store.set(keyPrefix + "/verdict/" + localRank, own.encode().getBytes(StandardCharsets.UTF_8));
    List<String> all = new ArrayList<>();
    for (int rank = 0; rank < world; rank++) {
      all.add(
          new String(store.get(keyPrefix + "/verdict/" + rank, timeout), StandardCharsets.UTF_8));
    }
    return combine(all);
  }

  /** Combines every rank's published text, in local-rank order. */
  public static PeerAccessVerdict combine(List<String> published) {
    List<String> failures = new ArrayList<>();
    for (int rank = 0; rank < published.size(); rank++) {
      String text = published.get(rank);
      if (!text.equals(OK)) {
        String why = text.startsWith(FAILED) ? text.substring(FAILED.length()) : text;
        failures.add("local rank " + rank + ": " + why);
      }
    }
    if (failures.isEmpty()) {
      return usable();
    }
    return unavailable("peer memory (CUDA IPC) check failed, " + String.join("; ", failures));
  }
}
