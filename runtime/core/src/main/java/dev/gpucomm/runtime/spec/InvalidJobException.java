package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.validation.SpecProblem;
import dev.gpucomm.runtime.UsageException;
import java.util.List;

/**
 * A CommJob file that cannot be run: the message is "source: field.path: problem" for its first
 * problem; {@link #problems()} holds every one found.
 */
public final class InvalidJobException extends UsageException {
  private final String source;
  private final List<SpecProblem> problems;

  public InvalidJobException(String source, String fieldPath, String problem) {
    this(source, List.of(new SpecProblem(fieldPath, problem)));
  }

  /** {@code problems} holds at least one. */
  public InvalidJobException(String source, List<SpecProblem> problems) {
    super(source + ": " + problems.getFirst());
    this.source = source;
    this.problems = List.copyOf(problems);
  }

  /** The file (or "command line") the job came from. */
  public String source() {
    return source;
  }

  /**
   * Dotted path of the first offending field, e.g. spec.workload.benchmark.dtype; empty if none.
   */
  public String fieldPath() {
    return problems.getFirst().fieldPath();
  }

  /** What is wrong with the first offending field. */
  public String problem() {
    return problems.getFirst().message();
  }

  /** Every problem found, the first one being the message's. */
  public List<SpecProblem> problems() {
    return problems;
  }

  /** One line per problem, each "source: field.path: problem". */
  public List<String> lines() {
    return problems.stream().map(p -> source + ": " + p).toList();
  }
}
