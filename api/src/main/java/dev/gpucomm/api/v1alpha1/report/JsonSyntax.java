package dev.gpucomm.api.v1alpha1.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

/** Describes text that Jackson could not parse, as the readers of gpucomm's JSON files say it. */
public final class JsonSyntax {

  private JsonSyntax() {}

  /** "not valid JSON at line L, column C: what Jackson found", the position left out if unknown. */
  public static String describe(JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    return "not valid JSON"
        + (location != null
            ? " at line " + location.getLineNr() + ", column " + location.getColumnNr()
            : "")
        + ": "
        + plain(e.getOriginalMessage());
  }

  /**
   * Jackson's words without its advice to its own callers ("enable `JsonReadFeature…` to allow")
   * and without the lines after the first, which repeat the source.
   */
  static String plain(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    String line = newline < 0 ? message : message.substring(0, newline);
    return line
        // "(bound as `…JsonNode`)", "(set DeserializationConfig.…FAIL_ON_… to 'false' to allow)";
        // the patterns name Jackson's types, so that a name echoed from the file stays whole
        .replaceAll(" \\(bound as `[\\w.$]+`\\)", "")
        .replaceAll(" *\\((?:enable|set|disable) [\\w.]*(?:Config|Feature)\\.[\\w.]+ [^()]*\\)", "")
        // ": enable `JsonReadFeature…` to allow", ": not allowed as per `…FAIL_ON_TRAILING_TOKENS`"
        .replaceAll("[:;,]? *(?:enable|set|disable) `[\\w.]*Feature\\.[\\w]+` to allow", "")
        .replaceAll("[:;,]? *not allowed as per `[\\w.]*Feature\\.[\\w]+`", "")
        .strip();
  }
}
