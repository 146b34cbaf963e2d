package dev.gpucomm.runtime.report;

import static dev.gpucomm.runtime.report.HumanUnits.trimmed;

import dev.gpucomm.api.v1alpha1.report.FabricJudge;
import dev.gpucomm.api.v1alpha1.report.FabricReport;
import dev.gpucomm.api.v1alpha1.report.FabricVerdict;
import dev.gpucomm.api.v1alpha1.report.NodeMatrix;
import dev.gpucomm.api.v1alpha1.report.PodMatrix;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SequencedMap;

/** report.md of a fabric sweep: the verdict, then every matrix as a table beside its heatmap. */
public final class FabricMarkdown {
  private static final String NOT_MEASURED = "—";

  private FabricMarkdown() {}

  /** The verdict and the pod matrix, for the terminal. */
  public static String summary(FabricReport report) {
    StringBuilder md = new StringBuilder();
    verdict(md, FabricJudge.verdict(report));
    if (report.interNode() != null) {
      podTable(md, report.interNode());
    }
    return md.toString();
  }

  public static String write(FabricReport report) {
    StringBuilder md = new StringBuilder();
    md.append("# fabric sweep · world ")
        .append(report.worldSize())
        .append(" · ")
        .append(HumanUnits.count(report.ranksPerPod(), "rank"))
        .append(" per pod\n\n")
        .append("Job `")
        .append(report.job())
        .append("` · ")
        .append(ReportMarkdown.device(report.device(), report.deviceName()))
        .append(" · ")
        .append(HumanUnits.binaryBytes(report.bytes()))
        .append(" per transfer, median of ")
        .append(report.iterations())
        .append(" · started ")
        .append(report.startedAt())
        .append("\n\n");
    verdict(md, FabricJudge.verdict(report));
    if (report.interNode() != null) {
      PodMatrix pods = report.interNode();
      md.append("## Between pods (GB/s, row sends to column)\n\n")
          .append(
              String.format(
                  Locale.ROOT,
                  "%d rounds of a round-robin schedule in %.1f s; a pair below %s%% of the"
                      + " median is slow. Heatmap: `%s`.\n\n",
                  pods.rounds(),
                  pods.seconds(),
                  trimmed(report.slowFraction() * 100, 1),
                  FabricFiles.PODS_SVG));
      podTable(md, pods);
    }
    for (NodeMatrix node : report.intraNode()) {
      md.append("\n## Inside ")
          .append(node.node())
          .append(" (pod ")
          .append(node.pod())
          .append(")\n\nHeatmap: `")
          .append(FabricFiles.nodeSvg(node.pod()))
          .append("`.\n\n### One-way copy (GB/s, row to column)\n\n");
      gpuTable(md, node.oneWayGBps(), node.localCopyGBps());
      md.append("\n### Both ways at once (GB/s, row's direction)\n\n");
      gpuTable(md, node.bidirectionalGBps(), null);
      md.append("\n### Small-copy latency (µs)\n\n");
      gpuTable(md, node.latencyMicros(), null);
    }
    return md.toString();
  }

  private static void verdict(StringBuilder md, FabricVerdict verdict) {
    md.append("**Degraded: ")
        .append(verdict.status())
        .append("** (")
        .append(verdict.reason())
        .append("): ")
        .append(verdict.message())
        .append("\n\n");
  }

  private static void podTable(StringBuilder md, PodMatrix pods) {
    List<String> header = new ArrayList<>(List.of("from \\ to"));
    header.addAll(pods.nodes());
    row(md, header);
    md.append("|---|").append("---:|".repeat(pods.nodes().size())).append("\n");
    for (int a = 0; a < pods.nodes().size(); a++) {
      List<String> cells = new ArrayList<>(List.of(pods.nodes().get(a)));
      for (Double value : pods.bandwidthGBps().get(a)) {
        cells.add(value == null ? NOT_MEASURED : trimmed(value, 2));
      }
      row(md, cells);
    }
  }

  private static void gpuTable(StringBuilder md, List<List<Double>> matrix, List<Double> diagonal) {
    int n = matrix.size();
    List<String> header = new ArrayList<>(List.of("GPU"));
    for (int j = 0; j < n; j++) {
      header.add(Integer.toString(j));
    }
    row(md, header);
    md.append("|---|").append("---:|".repeat(n)).append("\n");
    for (int i = 0; i < n; i++) {
      List<String> cells = new ArrayList<>(List.of(Integer.toString(i)));
      for (int j = 0; j < n; j++) {
        Double value = i == j && diagonal != null ? diagonal.get(i) : matrix.get(i).get(j);
        cells.add(value == null ? NOT_MEASURED : trimmed(value, 2));
      }
      row(md, cells);
    }
    if (diagonal != null) {
      md.append("\nThe diagonal is each GPU copying within its own memory.\n");
    }
  }

  private static void row(StringBuilder md, List<String> cells) {
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }

  /** The heatmap files of a fabric report, by file name. */
  static void heatmaps(FabricReport report, SequencedMap<String, String> files) {
    if (report.interNode() != null) {
      files.put(
          FabricFiles.PODS_SVG,
          HeatmapSvg.write(
              "Pod to pod bandwidth (GB/s)",
              report.interNode().nodes(),
              report.interNode().bandwidthGBps()));
    }
    for (NodeMatrix node : report.intraNode()) {
      List<String> labels = new ArrayList<>();
      List<List<Double>> matrix = new ArrayList<>();
      for (int i = 0; i < node.ranks().size(); i++) {
        labels.add("GPU " + i);
        List<Double> row = new ArrayList<>(node.oneWayGBps().get(i));
        row.set(i, node.localCopyGBps().get(i));
        matrix.add(row);
      }
      files.put(
          FabricFiles.nodeSvg(node.pod()),
          HeatmapSvg.write("One-way copy on " + node.node() + " (GB/s)", labels, matrix));
    }
  }
}
