package dev.gpucomm.runtime.report;

import java.util.List;
import java.util.Locale;

/**
 * A matrix as an SVG heatmap: one cell per (row, column) shaded from red (the lowest value) to
 * green (the highest), its value written in the cell, blank where nothing was measured; rows and
 * columns labelled.
 */
public final class HeatmapSvg {
  private static final int CELL = 64;
  private static final int LABEL = 150;
  private static final int TITLE = 40;

  private HeatmapSvg() {}

  public static String write(String title, List<String> labels, List<List<Double>> values) {
    int n = labels.size();
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (List<Double> row : values) {
      for (Double value : row) {
        if (value != null) {
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
      }
    }
    int width = LABEL + n * CELL + 20;
    int height = TITLE + LABEL + n * CELL + 20;
    StringBuilder svg = new StringBuilder();
    svg.append(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                    + " font-family=\"sans-serif\" font-size=\"12\">\n",
                width,
                height))
        .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"10\" y=\"24\" font-size=\"15\">%s</text>\n",
                escape(title)));
    for (int i = 0; i < n; i++) {
      int x = LABEL + i * CELL + CELL / 2;
      int y = TITLE + LABEL - 6;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" transform=\"rotate(-45 %d %d)\">%s</text>\n",
              x,
              y,
              x,
              y,
              escape(labels.get(i))));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
              LABEL - 6,
              TITLE + LABEL + i * CELL + CELL / 2 + 4,
              escape(labels.get(i))));
    }
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < n; c++) {
        Double value = r < values.size() && c < values.get(r).size() ? values.get(r).get(c) : null;
        int x = LABEL + c * CELL;
        int y = TITLE + LABEL + r * CELL;
        String fill = value == null ? "#eeeeee" : colour(value, min, max);
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"white\"/>\n",
                x,
                y,
                CELL,
                CELL,
                fill));
        if (value != null) {
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                  x + CELL / 2,
                  y + CELL / 2 + 4,
                  HumanUnits.trimmed(value, value >= 100 ? 0 : value >= 10 ? 1 : 2)));
        }
      }
    }
    return svg.append("</svg>\n").toString();
  }

  /** Red at the minimum through yellow to green at the maximum. */
  private static String colour(double value, double min, double max) {
    double t = max > min ? (value - min) / (max - min) : 1;
    int red = (int) Math.round(t < 0.5 ? 230 : 230 - (t - 0.5) * 2 * 150);
    int green = (int) Math.round(t < 0.5 ? 80 + t * 2 * 150 : 230);
    return String.format(Locale.ROOT, "#%02x%02x%02x", red, green, 90);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
