package dev.gpucomm.api.v1alpha1.validation;

import java.util.stream.Collectors;

/**
 * A user's value as an error message shows it: quoted, control characters escaped and cut short, so
 * that a hostile or mistaken value can neither drive the reader's terminal nor flood it.
 */
public final class EchoedValue {
  /** Characters of a value shown before it is cut; enough for any name the API accepts. */
  public static final int MAX_SHOWN_CHARACTERS = 80;

  private EchoedValue() {}

  /** {@code value} in single quotes, escaped and cut to {@link #MAX_SHOWN_CHARACTERS}. */
  public static String quoted(Object value) {
    return "'" + escaped(String.valueOf(value), MAX_SHOWN_CHARACTERS) + "'";
  }

  /**
   * {@code text} on one line: its lines stripped, blank ones left out, joined with {@code
   * separator}, then {@linkplain #escaped escaped} and cut. Linear in the text's length, since the
   * text may be a user's (a pattern such as {@code \s*\R\s*} backtracks quadratically over a long
   * run of spaces).
   */
  public static String onOneLine(String text, String separator, int maxCharacters) {
    String joined =
        text.lines()
            .map(String::strip)
            .filter(line -> !line.isEmpty())
            .collect(Collectors.joining(separator));
    return escaped(joined, maxCharacters);
  }

  /**
   * {@code text} with every control character written as an escape ({@code \n}, {@code \t}, {@code
   * \x1b}, {@code \u2028}) and, past {@code maxCharacters}, cut with a note of its length.
   */
  public static String escaped(String text, int maxCharacters) {
    StringBuilder shown = new StringBuilder();
    int length = text.codePointCount(0, text.length());
    int count = 0;
    for (int i = 0; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      i += Character.charCount(codePoint);
      if (count == maxCharacters) {
        shown.append("… (").append(length).append(" characters)");
        break;
      }
      appendEscaped(shown, codePoint);
      count++;
    }
    return shown.toString();
  }

  private static void appendEscaped(StringBuilder shown, int codePoint) {
    switch (codePoint) {
      case '\n' -> shown.append("\\n");
      case '\r' -> shown.append("\\r");
      case '\t' -> shown.append("\\t");
      default -> {
        if (needsEscape(codePoint)) {
          shown.append(
              codePoint <= 0xff ? "\\x%02x".formatted(codePoint) : "\\u%04x".formatted(codePoint));
        } else {
          shown.appendCodePoint(codePoint);
        }
      }
    }
  }

  /**
   * C0 and C1 controls (ESC starts terminal sequences; C1's CSI does on some terminals), line and
   * paragraph separators, and the bidirectional overrides that reorder what the reader sees.
   */
  private static boolean needsEscape(int codePoint) {
    return Character.isISOControl(codePoint)
        || codePoint == 0x2028
        || codePoint == 0x2029
        || (codePoint >= 0x202a && codePoint <= 0x202e)
        || (codePoint >= 0x2066 && codePoint <= 0x2069);
  }
}
