package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import dev.gpucomm.runtime.FailureCause;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.cpu.PeerTimeoutException;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.rendezvous.PeerFailedException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.IntSupplier;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The {@code gpucomm} command line. Usage errors exit with 2 and one line on stderr; failures exit
 * with 1 and one line; stack traces only with {@code --debug} or GPUCOMM_DEBUG=1.
 */
public final class Gpucomm {
  private Gpucomm() {}

  public static void main(String[] args) {
    boolean terminal = System.console() != null && System.console().isTerminal();
    int exit = execute(args, System.out, System.err, System.getenv(), terminal);
    System.out.flush();
    System.err.flush();
    if (!shuttingDown()) {
      System.exit(exit);
    }
    // else a signal (SIGTERM, Ctrl-C) already ends the JVM with its own status: System.exit would
    // only wait for the shutdown hooks, after its exit logging failed on the closing JDK logger
  }

  /** Whether the JVM has begun to shut down: it then takes no more shutdown hooks. */
  private static boolean shuttingDown() {
    Thread probe = new Thread(() -> {});
    try {
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }

  /** Runs the command line {@code args}; returns the exit code. */
  public static int execute(
      String[] args, PrintStream out, PrintStream err, Map<String, String> env, boolean terminal) {
    return execute(args, out, err, env, terminal, DiagCommand.CUDA_DIAGNOSTICS);
  }

  /** As {@link #execute}, with {@code gpucomm diag} running {@code diagnosticsMain}. */
  static int execute(
      String[] args,
      PrintStream out,
      PrintStream err,
      Map<String, String> env,
      boolean terminal,
      String diagnosticsMain) {
    // read before parsing: a usage error that parsing finds must show its stack trace too
    String debugSwitch = env.getOrDefault(EnvVars.DEBUG, "");
    if (!debugSwitch.isEmpty() && !debugSwitch.equals("0") && !debugSwitch.equals("1")) {
      // "yes" or "true" silently meaning off would hide the stack trace the user asked for
      err.println(
          "gpucomm: "
              + EnvVars.DEBUG
              + ": unknown value "
              + EchoedValue.quoted(debugSwitch)
              + " (expected 1 or 0)");
      return 2;
    }
    boolean debug = Arrays.asList(args).contains("--debug") || debugSwitch.equals("1");
    if (debug) {
      DebugLogging.enable();
    }
    CliContext context = new CliContext(out, err, env, debug, terminal);
    PrintWriter help = new PrintWriter(out, true);
    int exit;
    try {
      exit =
          oneLineOnError(() -> commandLine(context, diagnosticsMain, help).execute(args), context);
    } finally {
      help.flush();
    }
    out.flush();
    if (out.checkError() && exit == 0) {
      // A print stream keeps its errors to itself: a full disk or a closed pipe would otherwise
      // leave a truncated report behind an exit status of 0.
      err.println("gpucomm: cannot write to standard output");
      return 1;
    }
    return exit;
  }

  /**
   * Runs {@code command}, turning an {@link Error} into one line and exit 1, as the failure handler
   * does for exceptions: picocli lets errors pass (running out of heap on a huge input, a stack
   * overflow, a native library that does not load), which would end the JVM with a stack trace.
   */
  static int oneLineOnError(IntSupplier command, CliContext context) {
    try {
      return command.getAsInt();
    } catch (Error e) {
      if (context.debug()) {
        e.printStackTrace(context.err());
      }
      context.err().println("gpucomm: " + describe(e));
      return 1;
    }
  }

  private static CommandLine commandLine(
      CliContext context, String diagnosticsMain, PrintWriter help) {
    CommandLine cli =
        new CommandLine(new GpucommCommand())
            .addSubcommand(new RunCommand(context))
            .addSubcommand(new BenchCommand(context))
            .addSubcommand(new TuneCommand(context))
            .addSubcommand(new SelftestCommand(context))
            .addSubcommand(new ReportCommand(context))
            .addSubcommand(new LaunchCommand(context))
            .addSubcommand(new RankCommand(context))
            .addSubcommand(new DiagCommand(diagnosticsMain))
            .addSubcommand(new CompletionCommand(context))
            .addSubcommand(new HelpCommand());
    ValueConverters.register(cli);
    // an argument starting with @ is a value (a job name, a path), never a file of arguments
    cli.setExpandAtFiles(false);
    cli.setUsageHelpAutoWidth(true);
    cli.setOut(help);
    cli.setErr(new PrintWriter(context.err(), true));
    cli.setParameterExceptionHandler(new UsageErrorHandler(context));
    cli.setExecutionExceptionHandler(new FailureHandler(context));
    cli.setExecutionStrategy(
        parsed -> {
          if (parsed.isVersionHelpRequested()
              && parsed.originalArgs().stream().filter(arg -> !arg.equals("--debug")).count() > 1) {
            throw new ParameterException(
                cli,
                "--version takes no arguments",
                cli.getCommandSpec().findOption("--version"),
                null);
          }
          return new CommandLine.RunLast().execute(parsed);
        });
    return cli;
  }

  /** The kind and one-line text of a failure, as ranks and commands report it. */
  public static RankError classify(Throwable failure) {
    Throwable e = unwrap(failure);
    if (e instanceof UsageException) {
      return new RankError(RankError.Kind.USAGE, RankError.oneLine(e.getMessage()));
    }
    if (causedByPeer(e)) {
      return new RankError(RankError.Kind.PEER, describe(e));
    }
    return new RankError(RankError.Kind.FAILURE, describe(e));
  }

  /**
   * True when the failure only reports that another rank went away or stopped answering: through
   * the store, or through the CPU backend's shared-memory flags (possibly wrapped by a stream).
   */
  private static boolean causedByPeer(Throwable failure) {
    for (Throwable e = failure; e != null; e = e.getCause()) {
      if (e instanceof PeerFailedException
          || e instanceof dev.gpucomm.runtime.collective.cpu.PeerFailedException
          || e instanceof PeerTimeoutException) {
        return true;
      }
      if (e.getCause() == e) {
        break;
      }
    }
    return false;
  }

  /**
   * One line for a failure, naming its cause in words: our own exceptions carry messages written
   * for users, and the JDK's common ones are put in words here. The exception's type, which a
   * maintainer needs, is in the stack trace that --debug prints.
   */
  static String describe(Throwable failure) {
    return RankError.oneLine(FailureCause.of(unwrap(failure)));
  }

  static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}
