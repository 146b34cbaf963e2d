package dev.gpucomm.runtime.collective.cuda;

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
