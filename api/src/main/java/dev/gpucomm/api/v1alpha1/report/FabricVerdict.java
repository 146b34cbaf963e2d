package dev.gpucomm.api.v1alpha1.report;

import java.util.List;

/**
 * The Degraded condition's status, reason and message from a fabric sweep, with what it found: the
 * slow nodes (slow with most of their partners), the slow links between two nodes (slow alone), and
 * the slow GPU pairs inside a node.
 */
public record FabricVerdict(
    String status,
    String reason,
    String message,
    List<String> slowNodes,
    List<String> slowLinks,
    List<String> slowGpuPairs) {
  public static final String SLOW_NODE = "SlowNode";
  public static final String SLOW_LINK = "SlowLink";
  public static final String SLOW_GPU_PAIR = "SlowGpuPair";
  public static final String FABRIC_HEALTHY = "FabricHealthy";
  public static final String TOO_FEW_PAIRS = "TooFewPairs";

  public FabricVerdict {
    slowNodes = List.copyOf(slowNodes);
    slowLinks = List.copyOf(slowLinks);
    slowGpuPairs = List.copyOf(slowGpuPairs);
  }
}
