package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Where a YAML or JSON text stops being well-formed (1-based line and column, 0 when unknown) and
 * why: the YAML scanner's context and problem together ("while scanning for the next token: found
 * character '\t(TAB)' that cannot start any token"), not only the first of them.
 */
record SyntaxProblem(int line, int column, String cause) {
  private static final int MAX_CAUSE_CHARACTERS = 240;

  static SyntaxProblem of(Exception e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof MarkedYAMLException yaml && yaml.getProblem() != null) {
        Mark mark = yaml.getProblemMark();
        String text =
            yaml.getContext() == null
                ? yaml.getProblem()
                : yaml.getContext() + ": " + yaml.getProblem();
        return mark == null
            ? new SyntaxProblem(0, 0, shown(text))
            : new SyntaxProblem(mark.getLine() + 1, mark.getColumn() + 1, shown(text));
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    JsonLocation location = e instanceof JsonProcessingException json ? json.getLocation() : null;
    String message =
        e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    message = message == null ? "unreadable" : message;
    String firstLine = message.strip().lines().findFirst().orElse("unreadable");
    if (location == null || location.getLineNr() <= 0) {
      return new SyntaxProblem(0, 0, shown(firstLine));
    }
    return new SyntaxProblem(
        location.getLineNr(), Math.max(location.getColumnNr(), 0), shown(firstLine));
  }

  /** "source:line:column", or as much of it as is known. */
  String where(String source) {
    if (line <= 0) {
      return source;
    }
    return source + ":" + line + (column > 0 ? ":" + column : "");
  }

  private static String shown(String text) {
    return EchoedValue.onOneLine(text, " ", MAX_CAUSE_CHARACTERS);
  }
}
