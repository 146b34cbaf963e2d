package dev.gpucomm.runtime.report;

import static dev.gpucomm.runtime.report.HumanUnits.fixed;
import static dev.gpucomm.runtime.report.HumanUnits.megabytesTwoDecimals;
import static dev.gpucomm.runtime.report.HumanUnits.trimmed;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.BusBandwidth;
import dev.gpucomm.api.v1alpha1.report.FabricLines;
import dev.gpucomm.api.v1alpha1.report.FabricReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.NotMeasured;
import dev.gpucomm.api.v1alpha1.report.ProgramReport;
import dev.gpucomm.api.v1alpha1.report.ProgramTimes;
import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.api.v1alpha1.report.SizeComparison;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.api.v1alpha1.report.TimeBasis;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * report.md: the tables a person reads. For a benchmark, in the layout of vLLM's all-reduce
 * benchmark tables: one row per size ("Tensor Shape", "Tensor Size"), one column of median
 * microseconds per algorithm, the fastest with its speedup over NCCL (ring on the CPU backend), and
 * the heuristic's choice; first on CUDA-graph times where measured, then on eager times; then an
 * nccl-tests style table (size, count, type, time, algbw, busbw per algorithm) and the heuristic's
 * reasons.
 */
public final class ReportMarkdown {
  private static final String NOT_MEASURED = "—";

  /** A cell of an algorithm that could not run at that size (the reasons follow the table). */
  private static final String NOT_AVAILABLE = "n/a";

  private ReportMarkdown() {}

  public static String write(Report report) {
    return switch (report) {
      case BenchmarkReport benchmark -> benchmark(benchmark);
      case ProgramReport program -> program(program);
      case FabricReport fabric -> FabricMarkdown.write(fabric);
    };
  }

  static String benchmark(BenchmarkReport report) {
    List<Algorithm> algorithms = AlgorithmColumns.of(report);
    StringBuilder md = new StringBuilder();
    line(
        md,
        "# " + collective(report),
        String.valueOf(report.dtype()),
        "world " + report.worldSize() + inPlace(report));
    line(
        md,
        "Job `" + report.job() + "`",
        device(report.device(), report.deviceName()),
        HumanUnits.count(report.ranksPerPod(), "rank") + " per pod",
        "host `" + report.host() + "`",
        "hidden size " + report.hiddenSize(),
        "started " + report.startedAt(),
        "heuristic `" + report.heuristic() + "`");
    if (!"cuda".equals(report.device())) {
      md.append(hostFlowNote(report.device())).append("\n\n");
    }

    boolean anyGraph = anyGraph(report);
    md.append("## Latency (µs)\n\n").append(caption(report)).append("\n\n");
    md.append(SLOWEST_RANK_NOTE).append("\n\n");
    latencyTable(md, report, algorithms, TimeBasis.GRAPH_WHERE_MEASURED, anyGraph);
    if (anyGraph) {
      md.append("\n## Eager latency (µs)\n\n")
          .append(
              "Eager medians (one launch per call, host overhead included) in microseconds.\n\n");
      latencyTable(md, report, algorithms, TimeBasis.EAGER, false);
    }
    md.append("\n## nccl-tests view\n\n")
        .append(
            "Times in microseconds: "
                + graphReplay(report)
                + " medians where measured, eager otherwise."
                + " algbw = size / time and busbw = algbw × ")
        .append(busFactorText(report))
        .append(" (nccl-tests' definitions), in GB/s of 10^9 bytes.\n\n");
    ncclTestsTable(md, report, algorithms);
    md.append("\n## Heuristic decisions (`").append(report.heuristic()).append("`)\n\n");
    md.append("| Tensor Size | Choice | Reason |\n|---:|---|---|\n");
    for (SizeResult size : report.sizes()) {
      md.append("| ")
          .append(tensorSize(size.bytes()))
          .append(" | ")
          .append(size.chosen() == null ? NOT_MEASURED : size.chosen().wireName())
          .append(" | ")
          .append(size.chosenReason() == null ? "" : cell(size.chosenReason()))
          .append(" |\n");
    }
    fabric(md, report);
    RankSection.append(md, report);
    return md.toString();
  }

  /** The transports NCCL chose per communicator, where they were recorded. */
  private static void fabric(StringBuilder md, BenchmarkReport report) {
    if (report.fabric().isEmpty()) {
      return;
    }
    md.append("\n## Fabric\n\n")
        .append(
            "The transports NCCL chose for each communicator (`world`: every rank;"
                + " `across-pods`: the ranks of one local rank, which hierarchical all-reduce"
                + " crosses pods on), from NCCL's log.\n\n");
    for (String line : FabricLines.of(report.fabric())) {
      md.append("- ").append(line).append('\n');
    }
  }

  /**
   * The results table printed when a sweep finishes: a heading, the caption and the latency table
   * of report.md (graph times where measured, best with speedup, heuristic choice).
   */
  public static String summary(BenchmarkReport report) {
    StringBuilder md = new StringBuilder();
    line(
        md,
        "### " + collective(report),
        String.valueOf(report.dtype()),
        "world " + report.worldSize() + inPlace(report),
        "heuristic " + report.heuristic());
    md.append(caption(report)).append(' ').append(SLOWEST_RANK_NOTE).append("\n\n");
    latencyTable(
        md, report, AlgorithmColumns.of(report), TimeBasis.GRAPH_WHERE_MEASURED, anyGraph(report));
    return md.toString();
  }

  /**
   * The progress lines print the medians of the rank that draws them, which can differ from the
   * tables' figures: said under every table that follows progress lines.
   */
  private static final String SLOWEST_RANK_NOTE =
      "Each cell is the slowest rank's median (the progress lines print one rank's own).";

  private static boolean anyGraph(BenchmarkReport report) {
    return report.sizes().stream()
        .flatMap(size -> size.measurements().stream())
        .anyMatch(m -> m.graphMicros() != null);
  }

  private static String caption(BenchmarkReport report) {
    boolean allGraph =
        report.sizes().stream()
            .flatMap(size -> size.measurements().stream())
            .allMatch(m -> m.graphMicros() != null);
    String caption;
    if (!anyGraph(report)) {
      caption =
          "Eager medians (one launch per call) in microseconds (µs) per call; no graph replay"
              + " times were measured.";
    } else if (allGraph) {
      caption = graphReplay(report) + " medians in microseconds (µs) per call.";
    } else {
      caption =
          graphReplay(report)
              + " medians in microseconds (µs) per call where measured; cells marked *"
              + " are eager medians (no graph was measured for them).";
    }
    return caption + " Tensor Size in MB of 2^20 bytes.";
  }

  /** What a graph time is on the report's device: a CUDA graph, or the CPU backend's replay. */
  private static String graphReplay(BenchmarkReport report) {
    return "cuda".equals(report.device())
        ? "CUDA-graph replay"
        : "Graph replay (the " + report.device() + " backend's recorded kernels)";
  }

  private static void latencyTable(
      StringBuilder md,
      BenchmarkReport report,
      List<Algorithm> algorithms,
      TimeBasis basis,
      boolean markEager) {
    List<String> header = new ArrayList<>(List.of("Tensor Shape", "Tensor Size"));
    List<String> alignment = new ArrayList<>(List.of("---", "---:"));
    for (Algorithm algorithm : algorithms) {
      header.add(algorithm.wireName());
      alignment.add("---:");
    }
    header.add(bestHeader(report, algorithms));
    header.add("Heuristic choice");
    alignment.add("---");
    alignment.add("---");
    row(md, header);
    row(md, alignment);
    for (SizeResult size : report.sizes()) {
      SizeComparison comparison = new SizeComparison(size, basis);
      List<String> cells = new ArrayList<>();
      cells.add(shape(report, size));
      cells.add(tensorSize(size.bytes()));
      for (Algorithm algorithm : algorithms) {
        Optional<Measurement> measurement = size.of(algorithm);
        cells.add(
            measurement
                .map(m -> fixed(basis.micros(m), 1) + (markEager && basis.showsEager(m) ? "*" : ""))
                .orElse(notMeasuredCell(size, algorithm)));
      }
      cells.add(bestCell(comparison));
      cells.add(choiceCell(comparison));
      row(md, cells);
    }
    notMeasuredReasons(md, report);
  }

  private static String notMeasuredCell(SizeResult size, Algorithm algorithm) {
    return size.notMeasuredReason(algorithm).isPresent() ? NOT_AVAILABLE : NOT_MEASURED;
  }

  /** Why each {@code n/a} cell of the table above did not run, one line per size and reason. */
  private static void notMeasuredReasons(StringBuilder md, BenchmarkReport report) {
    boolean first = true;
    for (SizeResult size : report.sizes()) {
      Map<String, List<String>> algorithmsByReason = new LinkedHashMap<>();
      for (NotMeasured skipped : size.notMeasured()) {
        algorithmsByReason
            .computeIfAbsent(skipped.reason(), k -> new ArrayList<>())
            .add(skipped.algorithm().wireName());
      }
      for (Map.Entry<String, List<String>> entry : algorithmsByReason.entrySet()) {
        if (first) {
          md.append("\n");
          first = false;
        }
        md.append("- n/a at ")
            .append(tensorSize(size.bytes()))
            .append(" (")
            .append(String.join(", ", entry.getValue()))
            .append("): ")
            .append(entry.getKey())
            .append('\n');
      }
    }
  }

  private static String bestCell(SizeComparison comparison) {
    Optional<Measurement> best = comparison.best();
    if (best.isEmpty()) {
      return NOT_MEASURED;
    }
    OptionalDouble speedup = comparison.bestSpeedupOverBaseline();
    return best.get().algorithm().wireName()
        + (speedup.isPresent() ? " (" + fixed(speedup.getAsDouble(), 2) + "x)" : "");
  }

  private static String choiceCell(SizeComparison comparison) {
    Algorithm chosen = comparison.size().chosen();
    if (chosen == null) {
      return NOT_MEASURED;
    }
    OptionalDouble slowdown = comparison.chosenSlowdown();
    if (slowdown.isEmpty()) {
      return chosen.wireName() + " (not measured)";
    }
    Optional<Measurement> best = comparison.best();
    if (best.isPresent() && best.get().algorithm() == chosen) {
      return chosen.wireName();
    }
    return chosen.wireName()
        + " (+"
        + trimmed((slowdown.getAsDouble() - 1) * 100, 1)
        + "% vs best)";
  }

  private static void ncclTestsTable(
      StringBuilder md, BenchmarkReport report, List<Algorithm> algorithms) {
    List<String> header = new ArrayList<>(List.of("size (B)", "count (elements)", "type"));
    List<String> alignment = new ArrayList<>(List.of("---:", "---:", "---"));
    for (Algorithm algorithm : algorithms) {
      header.add(algorithm.wireName() + " time (us)");
      header.add(algorithm.wireName() + " algbw (GB/s)");
      header.add(algorithm.wireName() + " busbw (GB/s)");
      alignment.addAll(List.of("---:", "---:", "---:"));
    }
    row(md, header);
    row(md, alignment);
    for (SizeResult size : report.sizes()) {
      // nccl-tests' size is the larger buffer; its count is one rank's elements
      long ncclTestsBytes =
          BusBandwidth.ncclTestsBytes(report.collective(), report.worldSize(), size.bytes());
      List<String> cells = new ArrayList<>();
      cells.add(Long.toString(ncclTestsBytes));
      cells.add(Long.toString(size.bytes() / report.dtype().bytes()));
      cells.add(report.dtype().wireName());
      for (Algorithm algorithm : algorithms) {
        Optional<Measurement> measurement = size.of(algorithm);
        if (measurement.isEmpty()) {
          String cell = notMeasuredCell(size, algorithm);
          cells.addAll(List.of(cell, cell, cell));
          continue;
        }
        double micros = TimeBasis.GRAPH_WHERE_MEASURED.micros(measurement.get());
        cells.add(fixed(micros, 1));
        cells.add(fixed(BusBandwidth.algBandwidthGBps(ncclTestsBytes, micros), 2));
        cells.add(
            fixed(
                BusBandwidth.busBandwidthGBps(
                    report.collective(), report.worldSize(), ncclTestsBytes, micros),
                2));
      }
      row(md, cells);
    }
  }

  private static String busFactorText(BenchmarkReport report) {
    String formula =
        switch (report.collective()) {
          case ALLREDUCE -> "2(n−1)/n";
          case ALLGATHER, REDUCESCATTER, COLLECTIVEPERMUTE -> "(n−1)/n";
          case BROADCAST -> "1";
        };
    return formula
        + " = "
        + trimmed(BusBandwidth.factor(report.collective(), report.worldSize()), 3)
        + " for "
        + report.collective()
        + " at n = "
        + report.worldSize();
  }

  /**
   * Says a speedup is given only when the column it is measured against is in the table: a header
   * that names a baseline the table lacks promises figures it cannot show.
   */
  private static String bestHeader(BenchmarkReport report, List<Algorithm> algorithms) {
    String baseline = baselineName(report);
    boolean shown = algorithms.contains("ring".equals(baseline) ? Algorithm.RING : Algorithm.NCCL);
    return shown ? "Best (Speedup vs " + baseline + ")" : "Best";
  }

  /** What the figures of a run on a device other than a GPU can and cannot tell. */
  static String hostFlowNote(String device) {
    return "The "
        + device
        + " backend runs each collective's flow (its steps, barriers and data movement) in host"
        + " processes: these figures show that flow, not GPU performance.";
  }

  private static String baselineName(BenchmarkReport report) {
    boolean nccl = report.sizes().stream().anyMatch(size -> size.of(Algorithm.NCCL).isPresent());
    boolean ring = report.sizes().stream().anyMatch(size -> size.of(Algorithm.RING).isPresent());
    return nccl || !ring ? "NCCL" : "ring";
  }

  /** MB with two decimals as vLLM prints them; sizes under 0.01 MB in KB or B instead. */
  private static String tensorSize(long bytes) {
    return bytes * 100 >= 1L << 20 ? megabytesTwoDecimals(bytes) : HumanUnits.shortBytes(bytes);
  }

  private static String shape(BenchmarkReport report, SizeResult size) {
    if (size.tokens() != null) {
      return "(" + size.tokens() + ", " + report.hiddenSize() + ")";
    }
    return "(" + size.bytes() / report.dtype().bytes() + ",)";
  }

  /** The collective, and the fused pattern around it where one ran. */
  private static String collective(BenchmarkReport report) {
    return report.fused()
        ? report.collective() + " + residual + RMSNorm (" + report.pattern().wireName() + ")"
        : String.valueOf(report.collective());
  }

  /** Says so in headings when the calls wrote their output over their input. */
  private static String inPlace(BenchmarkReport report) {
    return report.inPlace() ? " · in place" : "";
  }

  static String program(ProgramReport report) {
    ProgramTimes times = report.times();
    StringBuilder md = new StringBuilder();
    line(md, "# Program " + report.program(), "world " + report.worldSize());
    line(
        md,
        "Job `" + report.job() + "`",
        device(report.device(), report.deviceName()),
        "host `" + report.host() + "`",
        "started " + report.startedAt(),
        String.valueOf(report.dtype()),
        "m×n×k = " + report.m() + "×" + report.n() + "×" + report.k(),
        report.chunks() + " chunks",
        report.streams() + " streams",
        "passes: " + (report.passes().isEmpty() ? "none" : String.join(", ", report.passes())),
        report.iterations() + " iterations",
        "max relative error " + String.format(Locale.ROOT, "%.3g", report.maxRelativeError()));
    md.append("| Run | Median (ms) | vs unpipelined |\n|---|---:|---:|\n");
    md.append("| pipelined (after the passes) | ")
        .append(fixed(times.pipelinedMillis(), 3))
        .append(" | ")
        .append(fixed(times.speedup(), 2))
        .append("x |\n");
    md.append("| unpipelined | ")
        .append(fixed(times.unpipelinedMillis(), 3))
        .append(" | 1.00x |\n");
    md.append("| matmul alone | ").append(fixed(times.matmulAloneMillis(), 3)).append(" | |\n");
    md.append("| communication alone | ")
        .append(fixed(times.commAloneMillis(), 3))
        .append(" | |\n\n");
    md.append("Matmul throughput when pipelined: ")
        .append(fixed(times.tflops(), 1))
        .append(" TFLOP/s. Overlap hid ")
        .append(fixed(times.overlappedMillis(), 3))
        .append(" ms of the ")
        .append(fixed(times.commAloneMillis(), 3))
        .append(" ms of communication (")
        .append(fixed(times.hiddenCommFraction() * 100, 0))
        .append("%).\n");
    if (report.smPartition() != null) {
      md.append("\nSM partition: ")
          .append(report.smPartition())
          .append(" (matmuls and communication timed alone ran split the same way; the")
          .append(" unpipelined run used every SM).\n");
    }
    return md.toString();
  }

  /** A paragraph of fields separated by middle dots, as the report headers are written. */
  private static void line(StringBuilder md, String... fields) {
    md.append(String.join(" · ", fields)).append("\n\n");
  }

  /** "cuda (NVIDIA H200)", or the name alone where it already starts with the kind. */
  static String device(String device, String deviceName) {
    // A name that already starts with the device kind ("cpu (2 cores)") says it once.
    if (deviceName == null || deviceName.startsWith(device)) {
      return deviceName == null ? device : deviceName;
    }
    return device + " (" + deviceName + ")";
  }

  private static void row(StringBuilder md, List<String> cells) {
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
