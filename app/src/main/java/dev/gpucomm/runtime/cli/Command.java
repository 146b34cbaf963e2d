package dev.gpucomm.runtime.cli;

import java.util.List;

/** One {@code gpucomm} subcommand. */
sealed interface Command
    permits RunCommand,
        BenchCommand,
        TuneCommand,
        SelftestCommand,
        LaunchCommand,
        RankCommand,
        ReportCommand {
  String name();

  /** One line for {@code gpucomm --help}. */
  String summary();

  /** The arguments after the command name, e.g. {@code -f FILE [options]}. */
  String synopsis();

  List<Option> options();

  /** Runs the command; returns the exit code. Usage errors are thrown as UsageException. */
  int run(ParsedArgs args, CliContext context);
}
