package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.SizeSummary;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What the operator takes from a job's report.json: one status row per size, every algorithm's
 * figures (for metrics), and what was measured ({@code setup}: collective, dtype, ranks, device and
 * whether times are CUDA-graph or eager ones), which two reports must share to be compared.
 */
public record ReportSummary(
    String collective, String setup, List<SizeSummary> sizes, List<AlgorithmFigure> figures) {
  public ReportSummary {
    sizes = List.copyOf(sizes);
    figures = List.copyOf(figures);
  }

  /** The fastest algorithm at the largest size measured. */
  public Optional<String> bestAtLargestSize() {
    return sizes.stream()
        .filter(size -> size.getBest() != null)
        .max(Comparator.comparingLong(SizeSummary::getBytes))
        .map(SizeSummary::getBest);
  }
}
