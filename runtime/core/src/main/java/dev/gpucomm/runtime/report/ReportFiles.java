package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.FabricReport;
import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The files of a report, rendered in memory and keyed by file name: report.json, report.csv,
 * report.md and latency.svg for a benchmark; report.json and report.md for a program; report.json,
 * report.md and heatmaps for a fabric sweep. The same names are the keys of the results ConfigMap.
 */
public final class ReportFiles {
  public static final String JSON = "report.json";
  public static final String CSV = "report.csv";
  public static final String MARKDOWN = "report.md";
  public static final String SVG = "latency.svg";

  private ReportFiles() {}

  /** Every format of {@code report}, in the order above. */
  public static SequencedMap<String, String> render(Report report) {
    SequencedMap<String, String> files = new LinkedHashMap<>();
    files.put(JSON, ReportJson.write(report));
    if (report instanceof BenchmarkReport benchmark) {
      files.put(CSV, ReportCsv.write(benchmark));
    }
    files.put(MARKDOWN, ReportMarkdown.write(report));
    if (report instanceof BenchmarkReport benchmark) {
      files.put(SVG, LatencyPlotSvg.write(benchmark));
    }
    if (report instanceof FabricReport fabric) {
      FabricMarkdown.heatmaps(fabric, files);
    }
    return files;
  }

  /**
   * The subset of {@link #render} that fits the results ConfigMap (no CSV, which report.json
   * holds).
   */
  public static Map<String, String> forConfigMap(Report report) {
    SequencedMap<String, String> files = render(report);
    files.remove(CSV);
    return files;
  }
}
