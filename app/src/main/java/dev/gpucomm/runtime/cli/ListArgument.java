package dev.gpucomm.runtime.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** Comma-separated option values: sizes with binary units (4K, 1M = 2^20), integers, names. */
final class ListArgument {
  private ListArgument() {}

  static List<Long> sizes(ParsedArgs args, String option, String text) {
    return items(
        args,
        option,
        text,
        item -> {
          String upper = item.toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
          long unit = 1;
          char last = upper.isEmpty() ? ' ' : upper.charAt(upper.length() - 1);
          switch (last) {
            case 'K' -> unit = 1L << 10;
            case 'M' -> unit = 1L << 20;
            case 'G' -> unit = 1L << 30;
            default -> {}
          }
          String digits = unit == 1 ? upper : upper.substring(0, upper.length() - 1);
          try {
            return Math.multiplyExact(Long.parseLong(digits), unit);
          } catch (NumberFormatException | ArithmeticException e) {
            throw args.bad(option, "'" + item + "' is not a size (e.g. 4096, 64K, 1M)");
          }
        });
  }

  static List<Integer> integers(ParsedArgs args, String option, String text) {
    return items(
        args,
        option,
        text,
        item -> {
          try {
            return Integer.parseInt(item);
          } catch (NumberFormatException e) {
            throw args.bad(option, "'" + item + "' is not an integer");
          }
        });
  }

  static <T> List<T> items(ParsedArgs args, String option, String text, Function<String, T> parse) {
    List<T> items = new ArrayList<>();
    for (String item : text.split(",")) {
      String trimmed = item.strip();
      if (trimmed.isEmpty()) {
        throw args.bad(option, "empty item in '" + text + "'");
      }
      items.add(parse.apply(trimmed));
    }
    return items;
  }
}
