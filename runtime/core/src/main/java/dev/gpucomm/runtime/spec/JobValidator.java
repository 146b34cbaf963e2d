package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.validation.CommJobValidator;
import dev.gpucomm.api.v1alpha1.validation.SpecProblem;
import java.util.List;

/**
 * Runs the API's {@link CommJobValidator} for the CLI and the ranks: a job with problems is thrown
 * as one {@link InvalidJobException} whose message is the first of them and which carries them all.
 */
public final class JobValidator {
  private JobValidator() {}

  /** Throws the problems of {@code job}; {@code source} names the file in the message. */
  public static void validate(CommJob job, String source) {
    List<SpecProblem> problems = CommJobValidator.validate(job);
    if (!problems.isEmpty()) {
      throw new InvalidJobException(source, problems);
    }
  }
}
