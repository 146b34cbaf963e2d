package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.launch.RankError;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Says a usage error found by picocli (or an {@link OptionValueException}) in one line, {@code
 * gpucomm <command>: <problem>}, and exits with 2, instead of picocli's usage dump. A problem with
 * one option says what the option expects; a problem with the command line as a whole points at the
 * command's help.
 */
final class UsageErrorHandler implements IParameterExceptionHandler {
  static final int EXIT_CODE = 2;

  private final CliContext context;

  UsageErrorHandler(CliContext context) {
    this.context = context;
  }

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    if (context.debug()) {
      e.printStackTrace(context.err());
    }
    String command = e.getCommandLine().getCommandSpec().qualifiedName();
    // arguments are echoed: no escape sequence or megabyte-long argument reaches the terminal
    context.err().println(RankError.oneLine(command + ": " + problem(e, Arrays.asList(args))));
    return EXIT_CODE;
  }

  private static String problem(ParameterException e, List<String> args) {
    String hint = " (see " + e.getCommandLine().getCommandSpec().qualifiedName() + " --help)";
    return switch (e) {
      case UnmatchedArgumentException unmatched -> unmatched(unmatched) + hint;
      case MissingParameterException missing when !missing.getMissing().isEmpty() ->
          missing(missing.getMissing().getFirst(), args);
      case OverwrittenOptionException overwritten ->
          typedName(overwritten.getOverwritten(), null, args) + " given twice";
      default -> {
        if (e.getArgSpec() == null) {
          yield e.getMessage() + hint;
        }
        // picocli words a failed conversion "Invalid value for option ...": ours name the option,
        // as typed (-n, not --iters)
        yield e.getCause() instanceof TypeConversionException conversion
            ? typedName(e.getArgSpec(), e.getValue(), args) + ": " + conversion.getMessage()
            : e.getMessage();
      }
    };
  }

  private static String unmatched(UnmatchedArgumentException e) {
    String argument = e.getUnmatched().getFirst();
    CommandSpec command = e.getCommandLine().getCommandSpec();
    if (argument.startsWith("-") && argument.length() > 1) {
      int equals = argument.indexOf('=');
      String option =
          argument.startsWith("--") && equals > 0 ? argument.substring(0, equals) : argument;
      return "unknown option '" + option + "'";
    }
    if (!command.subcommands().isEmpty()) {
      return "unknown command '" + argument + "'";
    }
    return "unexpected argument '" + argument + "'";
  }

  /**
   * An option typed without its value ({@code run -f}) is said with the name as typed; a required
   * option or parameter never given is said with what it stands for.
   */
  private static String missing(ArgSpec missing, List<String> args) {
    if (missing instanceof OptionSpec option) {
      for (String typed : args.reversed()) {
        if (Arrays.asList(option.names()).contains(typed)) {
          return typed + " needs a value (" + option.paramLabel() + ")";
        }
      }
    }
    String[] description = missing.description();
    return name(missing)
        + " is required"
        + (description.length > 0 ? " (" + description[0] + ")" : "");
  }

  /**
   * The name of {@code arg} as the user typed it with {@code value} ({@code -n abc}, {@code -nabc},
   * {@code --iters=abc}); where no alias stands with that value (one item of a list, say), the
   * alias last typed; its longest name where none is found.
   */
  private static String typedName(ArgSpec arg, String value, List<String> args) {
    if (!(arg instanceof OptionSpec option)) {
      return name(arg);
    }
    if (value != null) {
      for (int i = 0; i < args.size(); i++) {
        String typed = args.get(i);
        for (String name : option.names()) {
          boolean apart =
              typed.equals(name) && i + 1 < args.size() && args.get(i + 1).equals(value);
          boolean joined =
              typed.equals(name + "=" + value)
                  || (!name.startsWith("--") && typed.equals(name + value));
          if (apart || joined) {
            return name;
          }
        }
      }
    }
    for (String typed : args.reversed()) {
      for (String name : option.names()) {
        boolean attachedShort = !name.startsWith("--") && typed.startsWith(name);
        if (typed.equals(name) || typed.startsWith(name + "=") || attachedShort) {
          return name;
        }
      }
    }
    return name(arg);
  }

  private static String name(ArgSpec arg) {
    return arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
  }
}
