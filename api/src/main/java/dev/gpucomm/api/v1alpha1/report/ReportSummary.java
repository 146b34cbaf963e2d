package dev.gpucomm.api.v1alpha1.report;

import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What a job's status takes from its report: one {@code status.summary} row per size, every
 * algorithm's figures and per-node figures (for metrics), a fabric sweep's verdict, the transports
 * NCCL chose ({@code status.fabric}, {@link FabricLines}), and what was measured ({@code setup}:
 * collective, dtype, ranks, device and whether times are CUDA-graph or eager ones), which two
 * reports must share to be compared.
 */
public record ReportSummary(
    String collective,
    String setup,
    List<SizeSummary> sizes,
    List<AlgorithmFigure> figures,
    List<NodeFigure> nodes,
    FabricVerdict fabric,
    List<String> transports) {
  public ReportSummary {
    sizes = List.copyOf(sizes);
    figures = List.copyOf(figures);
    nodes = List.copyOf(nodes);
    transports = List.copyOf(transports);
  }

  /** The Degraded verdict of a fabric sweep; empty for other reports. */
  public Optional<FabricVerdict> fabricVerdict() {
    return Optional.ofNullable(fabric);
  }

  /**
   * Reads report.json text; {@code source} names it in errors.
   *
   * @throws ReportFormatException naming the source, and the field when one is wrong
   */
  public static ReportSummary read(String json, String source) {
    return of(ReportJson.parse(json, source));
  }

  /** The summary of {@code report}; a program run has no per-size rows. */
  public static ReportSummary of(Report report) {
    return switch (report) {
      case BenchmarkReport benchmark ->
          new ReportSummary(
              benchmark.collective().wireName(),
              setup(benchmark),
              StatusSummary.of(benchmark),
              figures(benchmark),
              NodeFigures.of(benchmark),
              null,
              FabricLines.of(benchmark.fabric()));
      case ProgramReport ignored ->
          new ReportSummary(
              null, ReportJson.KIND_PROGRAM, List.of(), List.of(), List.of(), null, List.of());
      case FabricReport fabric ->
          new ReportSummary(
              null,
              ReportJson.KIND_FABRIC,
              List.of(),
              List.of(),
              NodeFigures.of(fabric),
              FabricJudge.verdict(fabric),
              List.of());
    };
  }

  /** The fastest algorithm at the largest size measured. */
  public Optional<String> bestAtLargestSize() {
    return sizes.stream()
        .filter(size -> size.getBest() != null)
        .max(Comparator.comparingLong(SizeSummary::getBytes))
        .map(SizeSummary::getBest);
  }

  /**
   * "allreduce bf16 on 8 ranks (cuda, CUDA-graph times)", or "(..., in place)": what a baseline
   * must have measured too.
   */
  private static String setup(BenchmarkReport report) {
    boolean graphs =
        report.sizes().stream()
            .flatMap(size -> size.measurements().stream())
            .anyMatch(measurement -> measurement.graphMicros() != null);
    return "%s %s on %d %s (%s, %s times%s)"
        .formatted(
            report.collective().wireName(),
            report.dtype().wireName(),
            report.worldSize(),
            report.worldSize() == 1 ? "rank" : "ranks",
            report.device(),
            graphs ? graphKind(report.device()) : "eager",
            report.inPlace() ? ", in place" : "");
  }

  /** A CUDA graph on GPUs; the CPU backend replays the kernels it recorded instead. */
  private static String graphKind(String device) {
    return "cuda".equals(device) ? "CUDA-graph" : "graph-replay";
  }

  private static List<AlgorithmFigure> figures(BenchmarkReport report) {
    List<AlgorithmFigure> figures = new ArrayList<>();
    for (SizeResult size : report.sizes()) {
      for (Measurement measurement : size.measurements()) {
        double micros = TimeBasis.GRAPH_WHERE_MEASURED.micros(measurement);
        figures.add(
            new AlgorithmFigure(
                size.bytes(),
                measurement.algorithm().wireName(),
                micros,
                BusBandwidth.busBandwidthOfMessage(
                    report.collective(), report.worldSize(), size.bytes(), micros)));
      }
    }
    return figures;
  }
}
