package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.api.v1alpha1.report.TimeBasis;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * latency.svg: median latency (log scale) against message size (log scale), one polyline with
 * markers per algorithm, the heuristic's choice ringed at each size, like the figures of
 * FlashInfer's heuristic change. Graph times where measured, eager otherwise. Plain SVG 1.1 built
 * as text.
 *
 * <p>Written by hand rather than with a charting library: those (JFreeChart, XChart and the like)
 * need {@code java.desktop}, which the jlinked runtime of the bundle and the image leaves out.
 */
public final class LatencyPlotSvg {
  private static final int WIDTH = 920;
  private static final int HEIGHT = 560;
  private static final int LEFT = 90;
  private static final int RIGHT = 190;
  private static final int TOP = 70;
  private static final int BOTTOM = 60;
  private static final double PLOT_WIDTH = WIDTH - LEFT - RIGHT;
  private static final double PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;

  private static final Map<Algorithm, String> COLORS =
      Map.of(
          Algorithm.NCCL, "#1f77b4",
          Algorithm.ONESHOT, "#d62728",
          Algorithm.TWOSHOT, "#2ca02c",
          Algorithm.RING, "#9467bd",
          Algorithm.HIERARCHICAL, "#8c564b",
          Algorithm.AUTO, "#ff7f0e");

  private LatencyPlotSvg() {}

  public static String write(BenchmarkReport report) {
    TimeBasis basis = TimeBasis.GRAPH_WHERE_MEASURED;
    List<Algorithm> algorithms = AlgorithmColumns.of(report);
    List<Long> sizes = report.sizes().stream().map(SizeResult::bytes).toList();
    List<Double> times =
        report.sizes().stream()
            .flatMap(size -> size.measurements().stream())
            .map(basis::micros)
            .filter(micros -> micros > 0 && Double.isFinite(micros))
            .toList();
    LogAxis x =
        sizes.isEmpty()
            ? new LogAxis(1024, 1 << 20)
            : LogAxis.padded(
                sizes.stream().mapToLong(Long::longValue).min().orElseThrow(),
                sizes.stream().mapToLong(Long::longValue).max().orElseThrow());
    LogAxis y =
        times.isEmpty()
            ? new LogAxis(1, 1000)
            : LogAxis.padded(
                times.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                times.stream().mapToDouble(Double::doubleValue).max().orElseThrow());

    StringBuilder svg = new StringBuilder();
    svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(HEIGHT)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(HEIGHT)
        .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    String title =
        report.collective()
            + " · "
            + report.dtype()
            + " · world "
            + report.worldSize()
            + " — latency vs message size";
    text(svg, WIDTH / 2.0, 28, "middle", "16", "bold", title, "title");
    text(
        svg,
        WIDTH / 2.0,
        48,
        "middle",
        "12",
        "normal",
        (report.deviceName() == null ? report.device() : report.deviceName())
            + " · median per call, "
            + ("cuda".equals(report.device()) ? "CUDA-graph replay" : "graph replay")
            + " where measured, eager otherwise · circled: "
            + report.heuristic()
            + "'s choice"
            + ("cuda".equals(report.device()) ? "" : " · shows the flow, not GPU performance"),
        "subtitle");

    // Frame and grid.
    svg.append("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n");
    List<Double> xTicks = x.binaryTicks();
    List<Double> yTicks = y.decimalTicks();
    for (double tick : xTicks) {
      double px = xPixel(x, tick);
      svg.append(line(px, TOP, px, TOP + PLOT_HEIGHT));
    }
    for (double tick : yTicks) {
      double py = yPixel(y, tick);
      svg.append(line(LEFT, py, LEFT + PLOT_WIDTH, py));
    }
    svg.append("</g>\n");
    svg.append("<rect class=\"frame\" x=\"")
        .append(LEFT)
        .append("\" y=\"")
        .append(TOP)
        .append("\" width=\"")
        .append(number(PLOT_WIDTH))
        .append("\" height=\"")
        .append(number(PLOT_HEIGHT))
        .append("\" fill=\"none\" stroke=\"#333333\"/>\n");

    svg.append("<g class=\"x-axis\">\n");
    for (double tick : xTicks) {
      text(
          svg,
          xPixel(x, tick),
          TOP + PLOT_HEIGHT + 18,
          "middle",
          "11",
          "normal",
          HumanUnits.shortBytes(Math.round(tick)),
          "tick");
    }
    text(
        svg,
        LEFT + PLOT_WIDTH / 2,
        HEIGHT - 18,
        "middle",
        "12",
        "normal",
        "message size per rank",
        "label");
    svg.append("</g>\n<g class=\"y-axis\">\n");
    double lastLabelled = Double.POSITIVE_INFINITY;
    for (double tick : yTicks) {
      double py = yPixel(y, tick);
      // Label only ticks far enough apart to read; the grid keeps every one.
      if (lastLabelled - py >= 16) {
        text(svg, LEFT - 8, py + 4, "end", "11", "normal", HumanUnits.micros(tick), "tick");
        lastLabelled = py;
      }
    }
    svg.append("<text class=\"label\" transform=\"translate(22,")
        .append(number(TOP + PLOT_HEIGHT / 2))
        .append(") rotate(-90)\" text-anchor=\"middle\">latency (log scale)</text>\n");
    svg.append("</g>\n");

    // One polyline with markers per algorithm.
    for (Algorithm algorithm : algorithms) {
      String color = COLORS.getOrDefault(algorithm, "#555555");
      List<String> points = new ArrayList<>();
      StringBuilder markers = new StringBuilder();
      for (SizeResult size : report.sizes()) {
        Optional<Measurement> measurement = size.of(algorithm);
        if (measurement.isEmpty() || !(basis.micros(measurement.get()) > 0)) {
          continue;
        }
        double micros = basis.micros(measurement.get());
        double px = xPixel(x, size.bytes());
        double py = yPixel(y, micros);
        points.add(number(px) + "," + number(py));
        markers
            .append("<circle cx=\"")
            .append(number(px))
            .append("\" cy=\"")
            .append(number(py))
            .append("\" r=\"3.5\" fill=\"")
            .append(color)
            .append("\"><title>")
            .append(
                escape(
                    algorithm
                        + " at "
                        + HumanUnits.shortBytes(size.bytes())
                        + ": "
                        + HumanUnits.micros(micros)
                        + (basis.showsEager(measurement.get()) ? " (eager)" : " (graph)")))
            .append("</title></circle>\n");
      }
      svg.append("<g class=\"algorithm\" data-algorithm=\"")
          .append(algorithm.wireName())
          .append("\">\n<polyline fill=\"none\" stroke=\"")
          .append(color)
          .append("\" stroke-width=\"2\" points=\"")
          .append(String.join(" ", points))
          .append("\"/>\n")
          .append(markers)
          .append("</g>\n");
    }

    // The heuristic's choice, ringed.
    svg.append("<g class=\"chosen\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\">\n");
    for (SizeResult size : report.sizes()) {
      if (size.chosen() == null) {
        continue;
      }
      Optional<Measurement> chosen = size.of(size.chosen());
      if (chosen.isEmpty() || !(basis.micros(chosen.get()) > 0)) {
        continue;
      }
      svg.append("<circle cx=\"")
          .append(number(xPixel(x, size.bytes())))
          .append("\" cy=\"")
          .append(number(yPixel(y, basis.micros(chosen.get()))))
          .append("\" r=\"8\"><title>")
          .append(
              escape(
                  report.heuristic()
                      + " chose "
                      + size.chosen()
                      + " at "
                      + HumanUnits.shortBytes(size.bytes())
                      + (size.chosenReason() == null ? "" : ": " + size.chosenReason())))
          .append("</title></circle>\n");
    }
    svg.append("</g>\n");

    // Legend.
    double legendX = LEFT + PLOT_WIDTH + 20;
    double legendY = TOP + 10;
    svg.append("<g class=\"legend\">\n");
    for (Algorithm algorithm : algorithms) {
      String color = COLORS.getOrDefault(algorithm, "#555555");
      svg.append("<line x1=\"")
          .append(number(legendX))
          .append("\" y1=\"")
          .append(number(legendY))
          .append("\" x2=\"")
          .append(number(legendX + 28))
          .append("\" y2=\"")
          .append(number(legendY))
          .append("\" stroke=\"")
          .append(color)
          .append("\" stroke-width=\"2\"/>\n")
          .append("<circle cx=\"")
          .append(number(legendX + 14))
          .append("\" cy=\"")
          .append(number(legendY))
          .append("\" r=\"3.5\" fill=\"")
          .append(color)
          .append("\"/>\n");
      text(svg, legendX + 36, legendY + 4, "start", "12", "normal", algorithm.wireName(), "entry");
      legendY += 22;
    }
    svg.append("<circle cx=\"")
        .append(number(legendX + 14))
        .append("\" cy=\"")
        .append(number(legendY))
        .append("\" r=\"8\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n");
    text(
        svg,
        legendX + 36,
        legendY + 4,
        "start",
        "12",
        "normal",
        report.heuristic() + "'s choice",
        "entry");
    svg.append("</g>\n</svg>\n");
    return svg.toString();
  }

  private static double xPixel(LogAxis axis, double bytes) {
    return LEFT + axis.fraction(bytes) * PLOT_WIDTH;
  }

  private static double yPixel(LogAxis axis, double micros) {
    return TOP + (1 - axis.fraction(micros)) * PLOT_HEIGHT;
  }

  private static String line(double x1, double y1, double x2, double y2) {
    return "<line x1=\""
        + number(x1)
        + "\" y1=\""
        + number(y1)
        + "\" x2=\""
        + number(x2)
        + "\" y2=\""
        + number(y2)
        + "\"/>\n";
  }

  private static void text(
      StringBuilder svg,
      double x,
      double y,
      String anchor,
      String size,
      String weight,
      String content,
      String cssClass) {
    svg.append("<text class=\"")
        .append(cssClass)
        .append("\" x=\"")
        .append(number(x))
        .append("\" y=\"")
        .append(number(y))
        .append("\" text-anchor=\"")
        .append(anchor)
        .append("\" font-size=\"")
        .append(size)
        .append("\" font-weight=\"")
        .append(weight)
        .append("\">")
        .append(escape(content))
        .append("</text>\n");
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  static String escape(String text) {
    StringBuilder escaped = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '&' -> escaped.append("&amp;");
        case '<' -> escaped.append("&lt;");
        case '>' -> escaped.append("&gt;");
        case '"' -> escaped.append("&quot;");
        case '\'' -> escaped.append("&apos;");
        default -> {
          // XML 1.0 forbids most control characters even when escaped.
          if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') {
            escaped.append(c);
          }
        }
      }
    }
    return escaped.toString();
  }

  /** A logarithmic axis over [low, high], and the ticks people read on it. */
  record LogAxis(double low, double high) {
    static LogAxis padded(double min, double max) {
      double logMin = Math.log10(min);
      double logMax = Math.log10(max);
      double span = logMax - logMin;
      double pad = span > 0 ? span * 0.05 : 0.3;
      return new LogAxis(Math.pow(10, logMin - pad), Math.pow(10, logMax + pad));
    }

    double fraction(double value) {
      return (Math.log10(value) - Math.log10(low)) / (Math.log10(high) - Math.log10(low));
    }

    /** Powers of two inside the axis, thinned to at most ten. */
    List<Double> binaryTicks() {
      int first = (int) Math.ceil(Math.log(low) / Math.log(2) - 1e-9);
      int last = (int) Math.floor(Math.log(high) / Math.log(2) + 1e-9);
      int count = Math.max(1, last - first + 1);
      int step = Math.max(1, (int) Math.ceil(count / 10.0));
      List<Double> ticks = new ArrayList<>();
      for (int exponent = first; exponent <= last; exponent += step) {
        ticks.add(Math.pow(2, exponent));
      }
      return ticks;
    }

    /** Decades inside the axis; 1-2-5 steps, or every digit, when decades alone are too few. */
    List<Double> decimalTicks() {
      for (int[] mantissas : new int[][] {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
        List<Double> ticks = new ArrayList<>();
        int firstDecade = (int) Math.floor(Math.log10(low));
        int lastDecade = (int) Math.ceil(Math.log10(high));
        for (int decade = firstDecade; decade <= lastDecade; decade++) {
          for (int mantissa : mantissas) {
            double tick = mantissa * Math.pow(10, decade);
            if (tick >= low && tick <= high) {
              ticks.add(tick);
            }
          }
        }
        if (ticks.size() >= 3) {
          return ticks;
        }
      }
      return List.of(low, high);
    }
  }
}
