package dev.gpucomm.runtime.workload;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What rank 0 hands to the report: a Markdown summary for the terminal and the files to publish
 * (report.json, report.md, latency.svg, ...: text, as ConfigMap data must be).
 */
public record WorkloadResult(String summaryMarkdown, Map<String, String> files) {
  public WorkloadResult {
    files = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(files));
  }

  /** What ranks other than 0 return. */
  public static WorkloadResult none() {
    return new WorkloadResult("", Map.of());
  }

  public boolean isEmpty() {
    return summaryMarkdown.isEmpty() && files.isEmpty();
  }
}
