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
        + e.getOriginalMessage();
  }
}
