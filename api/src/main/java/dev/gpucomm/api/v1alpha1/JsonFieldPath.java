package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.databind.JsonMappingException;

/** The field a Jackson mapping failure is about, as a user writes it: "spec.containers[0].name". */
public final class JsonFieldPath {
  private JsonFieldPath() {}

  /** The path of {@code failure}'s reference chain, or "" when it names none. */
  public static String of(JsonMappingException failure) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference step : failure.getPath()) {
      if (step.getFieldName() != null) {
        path.append(path.isEmpty() ? "" : ".").append(step.getFieldName());
      } else if (step.getIndex() >= 0) {
        path.append('[').append(step.getIndex()).append(']');
      }
    }
    return path.toString();
  }
}
