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
    super(command.commandLine(), option + ": " + problem, command.findOption(option), null);
  }
}
