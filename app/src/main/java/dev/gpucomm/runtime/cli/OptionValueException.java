package dev.gpucomm.runtime.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A usage error in one option's value that only the command can see (a range, a pair of options
 * that belong together), said with the option's name like picocli's own conversion errors.
 */
final class OptionValueException extends ParameterException {
  private static final long serialVersionUID = 1L;

  OptionValueException(CommandSpec command, String option, String problem) {
    this(command, option, option, problem);
  }

  private OptionValueException(CommandSpec command, String option, String spelled, String problem) {
    super(command.commandLine(), spelled + ": " + problem, command.findOption(option), null);
  }

  /** A problem with a negatable option given in its {@code --no-} form. */
  static OptionValueException ofNegated(CommandSpec command, String option, String problem) {
    return new OptionValueException(
        command, option, "--no-" + option.substring("--".length()), problem);
  }
}
