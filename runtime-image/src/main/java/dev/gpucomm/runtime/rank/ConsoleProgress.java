package dev.gpucomm.runtime.rank;

import dev.gpucomm.runtime.launch.RankSettings.ProgressStyle;
import dev.gpucomm.runtime.workload.Progress;
import java.io.PrintStream;

/**
 * Rank 0's progress on the terminal: one line rewritten in place on a terminal ({@code live}), a
 * line per measured point in logs ({@code lines}), or nothing.
 */
public final class ConsoleProgress implements Progress {
  private final PrintStream out;
  private final ProgressStyle style;
  private int total;
  private int lastWidth;

  public ConsoleProgress(PrintStream out, ProgressStyle style) {
    this.out = out;
    this.style = style;
  }

  @Override
  public void start(String title, int total) {
    this.total = total;
    if (style != ProgressStyle.OFF) {
      out.println(title + ": " + total + " measurements");
    }
  }

  @Override
  public void advance(int done, String line) {
    String text = "[" + done + "/" + total + "] " + line;
    switch (style) {
      case LIVE -> {
        out.print("\r" + text + " ".repeat(Math.max(0, lastWidth - text.length())));
        lastWidth = text.length();
        out.flush();
      }
      case LINES -> out.println(text);
      case OFF -> {}
    }
  }

  @Override
  public void finish() {
    if (style == ProgressStyle.LIVE && lastWidth > 0) {
      out.print("\r" + " ".repeat(lastWidth) + "\r");
      out.flush();
      lastWidth = 0;
    }
  }
}
