package dev.gpucomm.runtime.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/** {@code gpucomm help [COMMAND]}: the same help as {@code gpucomm [COMMAND] --help}. */
@Command(
    name = "help",
    helpCommand = true,
    description = "show the help of gpucomm, or of one command",
    descriptionHeading = "%n",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n")
final class HelpCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  // Taken as a list: picocli passes over extra arguments of a help command, which would then show
  // one command's help as if "help run extra" had asked for it.
  @Parameters(arity = "0..*", paramLabel = "COMMAND", description = "the command to explain")
  List<String> commands = List.of();

  @Override
  public Integer call() {
    CommandLine gpucomm = spec.parent().commandLine();
    if (commands.size() > 1) {
      throw new UnmatchedArgumentException(
          spec.commandLine(), commands.subList(1, commands.size()));
    }
    String command = commands.isEmpty() ? null : commands.getFirst();
    CommandLine topic = gpucomm;
    if (command != null) {
      topic = gpucomm.getSubcommands().get(command);
      if (topic == null) {
        throw new UnmatchedArgumentException(gpucomm, List.of(command));
      }
    }
    topic.usage(gpucomm.getOut());
    return 0;
  }
}
