package dev.gpucomm.api.v1alpha1.validation;

/**
 * One problem of a CommJob: the path of the field at fault (e.g. {@code
 * spec.workload.benchmark.tokens[2]}; empty when the whole document is) and what is wrong with it.
 */
public record SpecProblem(String fieldPath, String message) {
  /** "fieldPath: message", or the message alone when no field is at fault. */
  @Override
  public String toString() {
    return fieldPath.isEmpty() ? message : fieldPath + ": " + message;
  }
}
