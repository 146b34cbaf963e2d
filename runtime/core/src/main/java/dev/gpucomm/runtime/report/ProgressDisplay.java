package dev.gpucomm.runtime.report;

import dev.gpucomm.api.v1alpha1.Algorithm;
import java.io.Console;
import java.io.PrintStream;

/**
 * Shows how far a sweep has got. On a terminal it redraws one status line in place ({@code \r});
 * elsewhere (logs, pipes) it prints one plain line per measured point, or nothing when silent.
 *
 * <p>Written by hand, as {@link LatencyPlotSvg} is: the libraries for this either need {@code
 * java.desktop}, which the jlinked runtime of the bundle and the image leaves out, or bring a
 * terminal library for what one line redrawn with {@code \r} does.
 */
public final class ProgressDisplay {
  private enum Mode {
    TERMINAL,
    LINES,
    SILENT
  }

  private final PrintStream out;
  private final Mode mode;
  private int drawnLength;
  private String lastMedian = "";
  private String scope = "";

  private ProgressDisplay(PrintStream out, Mode mode) {
    this.out = out;
    this.mode = mode;
  }

  /** Redraws in place when this JVM's console is a terminal, plain lines otherwise. */
  public static ProgressDisplay forConsole(PrintStream out) {
    Console console = System.console();
    return console != null && console.isTerminal() ? terminal(out) : lines(out);
  }

  /** One status line, redrawn in place. */
  public static ProgressDisplay terminal(PrintStream out) {
    return new ProgressDisplay(out, Mode.TERMINAL);
  }

  /** One plain line per measured point. */
  public static ProgressDisplay lines(PrintStream out) {
    return new ProgressDisplay(out, Mode.LINES);
  }

  /** Shows nothing. */
  public static ProgressDisplay silent() {
    return new ProgressDisplay(System.out, Mode.SILENT);
  }

  /**
   * Names what the following measurements belong to (a collective and dtype, say), for runs that
   * sweep several; it leads every line until the next call. Blank names nothing.
   */
  public synchronized void scope(String name) {
    scope = name.isBlank() ? "" : name.strip() + " · ";
    lastMedian = "";
  }

  /**
   * A measurement of {@code algorithm} at size {@code sizeIndex} (1-based) of {@code sizeCount}
   * starts.
   */
  public synchronized void measuring(
      int sizeIndex, int sizeCount, long bytes, Algorithm algorithm) {
    if (mode == Mode.TERMINAL) {
      redraw(prefix(sizeIndex, sizeCount, bytes) + " · measuring " + algorithm + "…" + lastMedian);
    }
  }

  /** A measurement finished with median {@code medianMicros}. */
  public synchronized void measured(
      int sizeIndex, int sizeCount, long bytes, Algorithm algorithm, double medianMicros) {
    String median = algorithm + " " + HumanUnits.micros(medianMicros);
    switch (mode) {
      case TERMINAL -> {
        lastMedian = " · last median " + median;
        redraw(prefix(sizeIndex, sizeCount, bytes) + lastMedian);
      }
      case LINES -> out.println(prefix(sizeIndex, sizeCount, bytes) + " · median " + median);
      case SILENT -> {}
    }
    out.flush();
  }

  /** Ends the status line so that what is printed next starts on a line of its own. */
  public synchronized void finish() {
    if (mode == Mode.TERMINAL && drawnLength > 0) {
      out.println();
      out.flush();
      drawnLength = 0;
    }
  }

  private String prefix(int sizeIndex, int sizeCount, long bytes) {
    return scope
        + "size "
        + sizeIndex
        + "/"
        + sizeCount
        + " ("
        + HumanUnits.shortBytes(bytes)
        + ")";
  }

  private void redraw(String line) {
    // Pad with spaces so that a shorter line wipes the rest of a longer one.
    String padding = " ".repeat(Math.max(0, drawnLength - line.length()));
    out.print("\r" + line + padding);
    out.flush();
    drawnLength = line.length();
  }
}
