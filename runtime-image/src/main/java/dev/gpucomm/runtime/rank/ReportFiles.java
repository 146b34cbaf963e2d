package dev.gpucomm.runtime.rank;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.runtime.bench.ReportRenderer;
import dev.gpucomm.runtime.report.BenchmarkReport;
import dev.gpucomm.runtime.report.HumanUnits;
import dev.gpucomm.runtime.report.Measurement;
import dev.gpucomm.runtime.report.SizeResult;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** The report files of a benchmark: report.json (schema 1) and the Markdown results table. */
public final class ReportFiles implements ReportRenderer {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Override
  public Map<String, String> files(BenchmarkReport report) {
    Map<String, String> files = new LinkedHashMap<>();
    try {
      files.put("report.json", JSON.writeValueAsString(report));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot write report.json", e);
    }
    files.put("report.md", summary(report));
    return files;
  }

  @Override
  public String summary(BenchmarkReport report) {
    Set<Algorithm> algorithms = new LinkedHashSet<>();
    report.sizes().forEach(size -> size.measurements().forEach(m -> algorithms.add(m.algorithm())));
    StringBuilder table = new StringBuilder();
    table
        .append("### ")
        .append(report.collective())
        .append(' ')
        .append(report.dtype())
        .append(", ")
        .append(report.worldSize())
        .append(" ranks, ")
        .append(report.deviceName())
        .append(", heuristic ")
        .append(report.heuristic())
        .append("\n\n| size |");
    algorithms.forEach(a -> table.append(' ').append(a).append(" |"));
    table.append(" best | chosen |\n|---|");
    algorithms.forEach(a -> table.append("---|"));
    table.append("---|---|\n");
    for (SizeResult size : report.sizes()) {
      table.append("| ").append(HumanUnits.binaryBytes(size.bytes())).append(" |");
      for (Algorithm algorithm : algorithms) {
        table
            .append(' ')
            .append(size.of(algorithm).map(m -> HumanUnits.micros(m.bestMicros())).orElse("–"))
            .append(" |");
      }
      table
          .append(' ')
          .append(size.best().map(Measurement::algorithm).map(Algorithm::wireName).orElse("–"))
          .append(" | ")
          .append(size.chosen())
          .append(" |\n");
    }
    return table.toString();
  }
}
