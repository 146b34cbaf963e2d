package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.spec.InvalidJobException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Says what a command threw in one line and exits with its code: 2 for a usage error found while
 * running (a bad job file, a setting), 1 for a failure. Stack traces only with --debug.
 */
final class FailureHandler implements IExecutionExceptionHandler {
  private final CliContext context;

  FailureHandler(CliContext context) {
    this.context = context;
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine command, ParseResult parsed) {
    RankError error = Gpucomm.classify(e);
    if (context.debug()) {
      e.printStackTrace(context.err());
    }
    String message = error.message();
    String prefix = command.getCommandSpec().qualifiedName() + ": ";
    context.err().println(message.startsWith("gpucomm ") ? message : prefix + message);
    if (context.debug() && Gpucomm.unwrap(e) instanceof InvalidJobException invalid) {
      // the line above is the job's first problem; --debug lists the others too
      invalid.lines().stream().skip(1).forEach(line -> context.err().println(prefix + line));
    }
    return error.exitCode();
  }
}
