package dev.gpucomm.runtime.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpucomm completion bash}: prints a bash completion script of every command and option,
 * generated from the same definitions that parse them.
 */
@Command(
    name = "completion",
    description = {
      "print a shell completion script",
      "for bash: source <(gpucomm completion bash),",
      "or save it as /etc/bash_completion.d/gpucomm"
    },
    descriptionHeading = "%n",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n")
final class CompletionCommand implements Callable<Integer> {
  private static final String BASH = "bash";

  private final CliContext context;

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "the shell: bash")
  String shell;

  CompletionCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (!shell.equals(BASH)) {
      throw new ParameterException(
          spec.commandLine(),
          "SHELL: unknown value '" + shell + "' (expected " + BASH + ")",
          spec.positionalParameters().getFirst(),
          shell);
    }
    context.out().print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
    return 0;
  }
}
