package dev.gpucomm.runtime.cli;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The flags of a command that builds its CommJob in memory, by the job fields they fill: a problem
 * with a field is said with the flag the user typed (--world, not spec.worldSize).
 */
final class FlagSpelling implements UnaryOperator<String> {
  private final Map<String, String> flagsOfFields;

  /** The fields, longest first: a path is said with the longest field it lies in. */
  private final List<String> fieldsLongestFirst;

  FlagSpelling(Map<String, String> flagsOfFields) {
    this.flagsOfFields = Map.copyOf(flagsOfFields);
    this.fieldsLongestFirst =
        flagsOfFields.keySet().stream()
            .sorted(Comparator.comparingInt(String::length).reversed())
            .toList();
  }

  /** The field that {@code path} lies in (spec.heuristic.tuningRef.name lies in its parent). */
  Optional<String> fieldOf(String path) {
    return fieldsLongestFirst.stream().filter(path::startsWith).findFirst();
  }

  /** The flag that fills {@code path}, or the path itself when no flag fills it. */
  @Override
  public String apply(String path) {
    return fieldOf(path).map(flagsOfFields::get).orElse(path);
  }

  /**
   * {@code text} with every field it names whole said as that field's flag: spec.ranksPerPod
   * becomes --ranks-per-pod, but spec.heuristic in spec.heuristic.name stays.
   */
  String inFlags(String text) {
    String said = text;
    for (String field : fieldsLongestFirst) {
      said =
          said.replaceAll(
              Pattern.quote(field) + "(?![\\w.])",
              Matcher.quoteReplacement(flagsOfFields.get(field)));
    }
    return said;
  }
}
