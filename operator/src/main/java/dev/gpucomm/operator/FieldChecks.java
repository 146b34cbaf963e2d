package dev.gpucomm.operator;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Checks of single spec fields shared by the validators; each adds one line per problem. */
final class FieldChecks {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  private FieldChecks() {}

  static void checkObjectName(String field, String name, List<String> problems) {
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      problems.add(
          "%s \"%s\" is not a valid object name (lowercase letters, digits, '-' and '.')"
              .formatted(field, name));
    }
  }

  static <T> void checkDistinct(
      String field, List<T> values, Function<? super T, ?> show, List<String> problems) {
    Set<T> seen = new HashSet<>();
    for (T value : values) {
      if (value != null && !seen.add(value)) {
        problems.add(field + " lists " + show.apply(value) + " twice");
        return;
      }
    }
  }

  static boolean inRange(List<String> problems, String field, Integer value, int min, int max) {
    if (value != null && (value < min || value > max)) {
      problems.add("%s must be between %d and %d, not %d".formatted(field, min, max, value));
      return false;
    }
    return true;
  }

  static void positive(List<String> problems, String field, Long value) {
    if (value != null && value <= 0) {
      problems.add(field + " must be positive, not " + value);
    }
  }
}
