package dev.gpucomm.runtime.cli;

import java.util.List;

/** Help texts of the command line. */
final class Help {
  private Help() {}

  static String overview(List<Command> commands) {
    StringBuilder text = new StringBuilder();
    text.append(
        "gpucomm: GPU communication jobs (CommJobs) on this host or in a Kubernetes cluster\n\n");
    text.append("Usage: gpucomm COMMAND [options]   (gpucomm COMMAND --help for its options)\n\n");
    text.append("Commands:\n");
    for (Command command : commands) {
      text.append(String.format("  %-9s %s%n", command.name(), command.summary()));
    }
    text.append(
        "\nGlobal: --debug (or GPUCOMM_DEBUG=1) prints stack traces with errors; --version.\n");
    text.append(
        "Exit codes: 0 success, 1 failure (a rank failed, a result was wrong), 2 usage error.\n");
    return text.toString();
  }

  static String of(Command command) {
    StringBuilder text = new StringBuilder();
    text.append("Usage: gpucomm ").append(command.name());
    if (!command.synopsis().isEmpty()) {
      text.append(' ').append(command.synopsis());
    }
    text.append("\n\n").append(command.summary()).append("\n");
    if (!command.options().isEmpty()) {
      text.append("\nOptions:\n");
      for (Option option : command.options()) {
        text.append(String.format("  %-26s %s%n", option.usage(), option.help()));
      }
    }
    return text.toString();
  }
}
