package dev.gpucomm.runtime.spec;

import java.util.regex.Pattern;

/**
 * Integers as scripts and job files write them: an optional sign and ASCII digits. Java's own
 * parsers also take other scripts' digits ("٢" is 2), which no shell variable or flag means as a
 * number.
 */
public final class AsciiIntegers {
  private static final Pattern ASCII_INTEGER = Pattern.compile("[+-]?[0-9]+");

  private AsciiIntegers() {}

  /** Whether {@code text} is an integer in ASCII digits. */
  public static boolean is(String text) {
    return ASCII_INTEGER.matcher(text).matches();
  }

  /** {@code text} as an int; NumberFormatException unless it is one in ASCII digits. */
  public static int parseInt(String text) {
    if (!is(text)) {
      throw new NumberFormatException("not an integer in ASCII digits: " + text);
    }
    return Integer.parseInt(text);
  }

  /** {@code text} as a long; NumberFormatException unless it is one in ASCII digits. */
  public static long parseLong(String text) {
    if (!is(text)) {
      throw new NumberFormatException("not an integer in ASCII digits: " + text);
    }
    return Long.parseLong(text);
  }
}
