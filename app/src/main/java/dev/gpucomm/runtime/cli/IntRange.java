package dev.gpucomm.runtime.cli;

import picocli.CommandLine.Model.CommandSpec;

/** The values an integer option accepts, from {@code min} to {@code max} inclusive. */
record IntRange(int min, int max) {
  /** {@code value} (null when the option was not given), or a usage error naming the option. */
  Integer check(CommandSpec command, String option, Integer value) {
    if (value != null && (value < min || value > max)) {
      throw new OptionValueException(command, option, value + " is outside " + min + ".." + max);
    }
    return value;
  }
}
