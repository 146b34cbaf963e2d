package dev.gpucomm.runtime.report.fetch;

import java.util.Map;
import java.util.Optional;

/** The files of a finished job's results ConfigMap ({@code <job>-results}), by key. */
public record JobResults(String namespace, String job, Map<String, String> files) {
  public static final String REPORT_JSON = "report.json";
  public static final String REPORT_MARKDOWN = "report.md";
  public static final String LATENCY_SVG = "latency.svg";

  public JobResults {
    files = Map.copyOf(files);
  }

  /** The name of the ConfigMap a job's rank 0 writes its report into. */
  public static String configMapName(String job) {
    return job + "-results";
  }

  public Optional<String> file(String key) {
    return Optional.ofNullable(files.get(key));
  }
}
