package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A command's arguments after parsing: option values by option name, flags, and positional
 * arguments. Accessors turn bad values into usage errors naming the option.
 */
final class ParsedArgs {
  private final String command;
  private final Map<String, String> values = new HashMap<>();
  private final List<String> positional = new ArrayList<>();

  private ParsedArgs(String command) {
    this.command = command;
  }

  /** Parses {@code args} against {@code options}; {@code --help} is always accepted. */
  static ParsedArgs parse(String command, List<Option> options, List<String> args) {
    ParsedArgs parsed = new ParsedArgs(command);
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--")) {
        parsed.positional.addAll(args.subList(i + 1, args.size()));
        break;
      }
      if (!arg.startsWith("-") || arg.equals("-")) {
        parsed.positional.add(arg);
        continue;
      }
      String name = arg;
      String inlineValue = null;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        inlineValue = arg.substring(equals + 1);
      }
      if (name.equals("--help") || name.equals("-h")) {
        parsed.values.put("help", "true");
        continue;
      }
      Option option = find(options, name);
      if (option == null) {
        throw new UsageException(
            "gpucomm "
                + command
                + ": unknown option '"
                + name
                + "' (see gpucomm "
                + command
                + " --help)");
      }
      if (option.takesValue()) {
        String value = inlineValue;
        if (value == null) {
          if (i + 1 >= args.size()) {
            throw new UsageException(
                "gpucomm " + command + ": " + name + " needs a value (" + option.valueName() + ")");
          }
          value = args.get(++i);
        }
        if (parsed.values.containsKey(option.name())) {
          throw new UsageException("gpucomm " + command + ": --" + option.name() + " given twice");
        }
        parsed.values.put(option.name(), value);
      } else {
        if (inlineValue != null) {
          throw new UsageException(
              "gpucomm " + command + ": --" + option.name() + " takes no value");
        }
        parsed.values.put(option.name(), "true");
      }
    }
    return parsed;
  }

  private static Option find(List<Option> options, String name) {
    for (Option option : options) {
      if (name.equals("--" + option.name())
          || (option.alias() != null && name.equals("-" + option.alias()))) {
        return option;
      }
    }
    return null;
  }

  boolean help() {
    return values.containsKey("help");
  }

  boolean flag(String name) {
    return values.containsKey(name);
  }

  Optional<String> value(String name) {
    return Optional.ofNullable(values.get(name));
  }

  String required(String name, String what) {
    return value(name)
        .orElseThrow(
            () ->
                new UsageException(
                    "gpucomm " + command + ": --" + name + " is required (" + what + ")"));
  }

  Optional<Path> path(String name) {
    return value(name).map(Path::of);
  }

  Optional<Integer> integer(String name, int min, int max) {
    return value(name)
        .map(
            text -> {
              int parsed;
              try {
                parsed = Integer.parseInt(text.trim());
              } catch (NumberFormatException e) {
                throw new UsageException(
                    "gpucomm " + command + ": --" + name + ": '" + text + "' is not an integer");
              }
              if (parsed < min || parsed > max) {
                throw new UsageException(
                    "gpucomm "
                        + command
                        + ": --"
                        + name
                        + ": "
                        + parsed
                        + " is outside "
                        + min
                        + ".."
                        + max);
              }
              return parsed;
            });
  }

  List<String> positional() {
    return List.copyOf(positional);
  }

  /** Fails when positional arguments were given to a command that takes none. */
  void noPositional() {
    if (!positional.isEmpty()) {
      throw new UsageException(
          "gpucomm "
              + command
              + ": unexpected argument '"
              + positional.getFirst()
              + "' (see gpucomm "
              + command
              + " --help)");
    }
  }

  UsageException bad(String option, String problem) {
    return new UsageException("gpucomm " + command + ": --" + option + ": " + problem);
  }
}
