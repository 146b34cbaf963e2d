package dev.gpucomm.runtime.bench;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A benchmark report as nccl-tests prints its results table, so that whatever reads nccl-tests'
 * output (a script, a dashboard, a person used to it) reads gpucomm's: its column headers, one row
 * per size for one algorithm with size, count, type, redop, root and then time, algbw, busbw and
 * #wrong out of place and in place, and its footer with the average bus bandwidth.
 *
 * <p>The figures are the report's own: the slowest rank's median per call where nccl-tests prints
 * the mean, graph replay where measured, and the bandwidths computed from that time. A wrong result
 * fails a job and leaves no report, so #wrong is 0 for every measured cell. What was not measured
 * (the in-place columns of an out-of-place run, a size the algorithm did not run at) reads N/A.
 * Lines that describe the run start with {@code #}, as nccl-tests' own do.
 */
public final class NcclTestsTable {
  private static final String HEADER_GROUPS =
      "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n";
  private static final String HEADER_COLUMNS =
      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n";
  private static final String ROW_START = "%12d  %12d  %8s  %6s  %6s";
  private static final String NOT_MEASURED = "N/A";

  /** Characters of a name from the report shown in a comment line. */
  private static final int MAX_NAME_CHARACTERS = 120;

  private NcclTestsTable() {}

  /**
   * The table of {@code report} for {@code algorithm}; {@link Algorithm#AUTO} shows what the
   * heuristic chose at each size (as {@code auto} measured it, else as that algorithm did).
   *
   * @throws IllegalArgumentException when the report measured {@code algorithm} at no size
   */
  public static String write(BenchmarkReport report, Algorithm algorithm) {
    List<Row> rows = new ArrayList<>();
    for (SizeResult size : report.sizes()) {
      rows.add(row(report, size, algorithm));
    }
    if (rows.stream().allMatch(row -> row.measurement().isEmpty())) {
      List<String> measured = measuredAlgorithms(report);
      throw new IllegalArgumentException(
          "the report of "
              + EchoedValue.quoted(report.job())
              + " has no "
              + algorithm.wireName()
              + " measurement ("
              + (measured.isEmpty() ? "it has none" : "it has " + String.join(", ", measured))
              + ")");
    }
    StringBuilder text = new StringBuilder();
    describe(text, report, algorithm, rows);
    text.append(format(HEADER_GROUPS, "", "", "", "", ""));
    text.append(
        format(
            HEADER_COLUMNS,
            "size",
            "count",
            "type",
            "redop",
            "root",
            "time",
            "algbw",
            "busbw",
            "#wrong",
            "time",
            "algbw",
            "busbw",
            "#wrong"));
    text.append(
        format(
            HEADER_COLUMNS,
            "(B)",
            "(elements)",
            "",
            "",
            "",
            "(us)",
            "(GB/s)",
            "(GB/s)",
            "",
            "(us)",
            "(GB/s)",
            "(GB/s)",
            ""));
    double busBandwidthSum = 0;
    for (Row row : rows) {
      text.append(
          format(
              ROW_START,
              row.bytes(),
              row.count(),
              typeName(report.dtype()),
              redop(report),
              root(report)));
      // The report holds one placement: the other one's four columns were not measured.
      text.append(report.inPlace() ? notMeasured() : cells(row.measurement()));
      text.append(report.inPlace() ? cells(row.measurement()) : notMeasured());
      text.append('\n');
      busBandwidthSum += row.measurement().map(Measurement::busBandwidthGBps).orElse(0.0);
    }
    long measured = rows.stream().filter(row -> row.measurement().isPresent()).count();
    text.append("# Out of bounds values : 0 OK\n");
    // nccl-tests averages the busbw of every measured cell, and leaves a space for its check.
    text.append("# Avg bus bandwidth    : ")
        .append(NcclTestsNumbers.general(busBandwidthSum / measured))
        .append(" \n");
    text.append("#\n");
    return text.toString();
  }

  /** One size: nccl-tests' size and count, the algorithm that ran it and what it measured. */
  private record Row(
      long bytes, long count, Optional<Algorithm> ran, Optional<Measurement> measurement) {}

  private static Row row(BenchmarkReport report, SizeResult size, Algorithm algorithm) {
    CollectiveShape shape =
        new CollectiveShape(report.collective(), size.bytes(), report.worldSize());
    // nccl-tests' size is the larger buffer, its count the elements of one rank's message.
    long bytes = shape.algorithmBytes();
    long count = size.bytes() / report.dtype().bytes();
    if (algorithm != Algorithm.AUTO) {
      return new Row(bytes, count, Optional.of(algorithm), size.of(algorithm));
    }
    Optional<Algorithm> chosen = Optional.ofNullable(size.chosen());
    Optional<Measurement> measurement = size.of(Algorithm.AUTO).or(() -> chosen.flatMap(size::of));
    return new Row(bytes, count, chosen, measurement);
  }

  private static void describe(
      StringBuilder text, BenchmarkReport report, Algorithm algorithm, List<Row> rows) {
    String device =
        report.deviceName() == null || report.deviceName().isBlank()
            ? report.device()
            : report.device() + " (" + report.deviceName() + ")";
    text.append("# gpucomm report ")
        .append(shown(report.job()))
        .append(" in nccl-tests' format: ")
        .append(report.collective().wireName())
        .append(report.fused() ? " with " + report.pattern().wireName() : "")
        .append(", ")
        .append(report.dtype().wireName())
        .append(", ")
        .append(report.worldSize())
        .append(" ranks, ")
        .append(shown(device))
        .append(", host ")
        .append(shown(report.host()))
        .append('\n');
    text.append("# algorithm ").append(algorithm.wireName());
    if (algorithm == Algorithm.AUTO) {
      text.append(" (heuristic ")
          .append(shown(report.heuristic()))
          .append("): ")
          .append(choices(rows));
    }
    text.append('\n');
    text.append(
        "# time: the slowest rank's median per call, graph replay where measured, else eager\n");
    text.append("# #wrong is 0: a wrong result fails the job, which then leaves no report\n");
    text.append("# N/A: not measured; ")
        .append(
            report.inPlace()
                ? "the out-of-place columns, as the job ran in place"
                : "the in-place columns, as the job ran out of place")
        .append('\n');
    text.append("#\n");
  }

  /** "oneshot at 8 to 524288 B, twoshot at 1048576 B": what auto ran, in runs of sizes. */
  private static String choices(List<Row> rows) {
    List<String> runs = new ArrayList<>();
    int first = 0;
    for (int i = 1; i <= rows.size(); i++) {
      if (i < rows.size() && rows.get(i).ran().equals(rows.get(first).ran())) {
        continue;
      }
      String name = rows.get(first).ran().map(Algorithm::wireName).orElse("no choice");
      long from = rows.get(first).bytes();
      long to = rows.get(i - 1).bytes();
      runs.add(name + " at " + from + (from == to ? "" : " to " + to) + " B");
      first = i;
    }
    return String.join(", ", runs);
  }

  /** Time, algbw, busbw and #wrong of one placement, each after two spaces as nccl-tests has. */
  private static String cells(Optional<Measurement> measurement) {
    if (measurement.isEmpty()) {
      return notMeasured();
    }
    Measurement measured = measurement.get();
    return "  "
        + NcclTestsNumbers.column(measured.bestMicros(), 7)
        + "  "
        + NcclTestsNumbers.column(measured.algBandwidthGBps(), 6)
        + "  "
        + NcclTestsNumbers.column(measured.busBandwidthGBps(), 6)
        + "  "
        + format("%6s", NcclTestsNumbers.general(0));
  }

  private static String notMeasured() {
    return format("  %7s  %6s  %6s  %6s", NOT_MEASURED, NOT_MEASURED, NOT_MEASURED, NOT_MEASURED);
  }

  /** nccl-tests' names of the element types. */
  private static String typeName(DType dtype) {
    return switch (dtype) {
      case BF16 -> "bfloat16";
      case FP16 -> "half";
      case FP32 -> "float";
    };
  }

  private static String redop(BenchmarkReport report) {
    return switch (report.collective()) {
      case ALLREDUCE, REDUCESCATTER -> "sum";
      case ALLGATHER, BROADCAST, COLLECTIVEPERMUTE -> "none";
    };
  }

  private static String root(BenchmarkReport report) {
    int root =
        switch (report.collective()) {
          case BROADCAST -> BenchmarkSweep.BROADCAST_ROOT;
          default -> -1;
        };
    return format("%6d", root);
  }

  /** printf as nccl-tests' C: digits are ASCII whatever the default locale. */
  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }

  private static List<String> measuredAlgorithms(BenchmarkReport report) {
    Set<String> names = new LinkedHashSet<>();
    for (SizeResult size : report.sizes()) {
      size.measurements().forEach(m -> names.add(m.algorithm().wireName()));
    }
    return List.copyOf(names);
  }

  private static String shown(String text) {
    return EchoedValue.escaped(text == null ? "" : text, MAX_NAME_CHARACTERS);
  }
}
