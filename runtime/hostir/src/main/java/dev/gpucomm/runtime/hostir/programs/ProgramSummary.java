package dev.gpucomm.runtime.hostir.programs;

import java.util.Locale;

/** The Markdown summary of a program report, for the terminal and report.md. */
final class ProgramSummary {
  private ProgramSummary() {}

  static String markdown(ProgramResult report) {
    FormTimes times = report.times();
    StringBuilder text = new StringBuilder();
    text.append(
        format(
            "## %s on %d × %s (%s)%n%n",
            report.program(), report.worldSize(), report.deviceName(), report.device()));
    text.append(
        format(
            "m = %d, n = %d, k = %d, %s, chunks %d, streams %d, passes %s, backend %s; median of"
                + " %d runs after %d warm-up runs, slowest rank.%n%n",
            report.m(),
            report.n(),
            report.k(),
            report.dtype(),
            report.chunks(),
            report.streams(),
            report.passes().isEmpty() ? "none" : String.join(", ", report.passes()),
            report.backend(),
            report.iterations(),
            report.warmupIterations()));
    text.append("| form | time (ms) | TFLOP/s | GB/s |\n|---|---:|---:|---:|\n");
    row(
        text,
        "unpipelined",
        times.unpipelinedMillis(),
        report.unpipelinedTflops(),
        report.unpipelinedGBps());
    row(
        text,
        "pipelined",
        times.pipelinedMillis(),
        report.pipelinedTflops(),
        report.pipelinedGBps());
    row(text, "compute alone", times.computeOnlyMillis(), null, null);
    row(text, "communication alone", times.communicationOnlyMillis(), null, null);
    text.append(format("%nSpeed-up of the pipelined form: %.2f×", report.speedup()));
    if (report.idealSpeedup() != null) {
      text.append(format(" (%.2f× if it hid its shorter part entirely)", report.idealSpeedup()));
    }
    Double overlap = report.overlapEfficiency();
    if (overlap != null) {
      text.append(format("; overlap efficiency %.2f", overlap));
      if (overlap > 1) {
        text.append(" (above 1: the parts timed alone took longer than inside the program)");
      } else if (overlap < 0) {
        text.append(
            " (below 0: the pipelined program took longer than its parts one after the other)");
      }
    }
    text.append('.');
    if (report.smPartition() != null) {
      text.append(
          format(
              "%n%nPipelined run: %s; the unpipelined run used every SM.",
              report.smPartition().description()));
    }
    text.append("\n\nResults ")
        .append(report.validated() ? "match" : "DO NOT match")
        .append(" the unpipelined form and exact values on every rank.\n");
    if (!report.transports().isEmpty()) {
      text.append("\nTransports:\n");
      report.transports().forEach(line -> text.append("- ").append(line).append('\n'));
    }
    if (!report.notes().isEmpty()) {
      text.append("\nNotes:\n");
      report.notes().forEach(line -> text.append("- ").append(line).append('\n'));
    }
    if (!report.ranks().isEmpty()) {
      text.append(ProgramTimelines.markdown(report.ranks().getFirst()));
    }
    return text.toString();
  }

  private static void row(
      StringBuilder text, String form, double millis, Double tflops, Double gbps) {
    text.append(
        format(
            "| %s | %.3f | %s | %s |%n",
            form, millis, tflops == null ? "" : rate(tflops), gbps == null ? "" : rate(gbps)));
  }

  /** One decimal for the sizes GPUs reach, three significant digits for the CPU's small rates. */
  private static String rate(double value) {
    return value >= 10 ? format("%.1f", value) : format("%.3g", value);
  }

  private static String format(String pattern, Object... arguments) {
    return String.format(Locale.ROOT, pattern, arguments);
  }
}
