package dev.gpucomm.runtime.spec;

import dev.gpucomm.runtime.UsageException;

/** A CommJob file that cannot be run: the message is "source: field.path: problem". */
public final class InvalidJobException extends UsageException {
  private final String source;
  private final String fieldPath;
  private final String problem;

  public InvalidJobException(String source, String fieldPath, String problem) {
    super(source + ": " + (fieldPath.isEmpty() ? "" : fieldPath + ": ") + problem);
    this.source = source;
    this.fieldPath = fieldPath;
    this.problem = problem;
  }

  /** The file (or "command line") the job came from. */
  public String source() {
    return source;
  }

  /** Dotted path of the offending field, e.g. spec.workload.benchmark.dtype; empty if none. */
  public String fieldPath() {
    return fieldPath;
  }

  public String problem() {
    return problem;
  }
}
