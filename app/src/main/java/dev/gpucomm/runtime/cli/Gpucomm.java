package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.collective.cpu.PeerTimeoutException;
import dev.gpucomm.runtime.launch.EnvVars;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.rendezvous.PeerFailedException;
import dev.gpucomm.runtime.spec.InvalidJobException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The {@code gpucomm} command line. Usage errors exit with 2 and one line on stderr; failures exit
 * with 1 and one line; stack traces only with {@code --debug} or GPUCOMM_DEBUG=1.
 */
public final class Gpucomm {
  static final List<Command> COMMANDS =
      List.of(
          new RunCommand(),
          new BenchCommand(),
          new TuneCommand(),
          new SelftestCommand(),
          new ReportCommand(),
          new LaunchCommand(),
          new RankCommand());

  private Gpucomm() {}

  public static void main(String[] args) {
    boolean terminal = System.console() != null && System.console().isTerminal();
    int exit = execute(args, System.out, System.err, System.getenv(), terminal);
    System.out.flush();
    System.err.flush();
    System.exit(exit);
  }

  /** Runs the command line {@code args}; returns the exit code. */
  public static int execute(
      String[] args, PrintStream out, PrintStream err, Map<String, String> env, boolean terminal) {
    List<String> arguments = new ArrayList<>(Arrays.asList(args));
    boolean debug = arguments.remove("--debug") || "1".equals(env.get(EnvVars.DEBUG));
    if (debug) {
      DebugLogging.enable();
    }
    CliContext context = new CliContext(out, err, env, debug, terminal);
    if (arguments.isEmpty()) {
      err.println("gpucomm: name a command (see gpucomm --help)");
      return 2;
    }
    String name = arguments.removeFirst();
    if (name.equals("--help") || name.equals("-h") || name.equals("help")) {
      if (arguments.size() > 1) {
        err.println("gpucomm: help takes one command at most (see gpucomm --help)");
        return 2;
      }
      if (!arguments.isEmpty()) {
        Optional<Command> command = find(arguments.getFirst());
        if (command.isEmpty()) {
          err.println(
              "gpucomm: unknown command '" + arguments.getFirst() + "' (see gpucomm --help)");
          return 2;
        }
        out.print(Help.of(command.get()));
        return 0;
      }
      out.print(Help.overview(COMMANDS));
      return 0;
    }
    if (name.equals("--version")) {
      if (!arguments.isEmpty()) {
        err.println("gpucomm: --version takes no arguments");
        return 2;
      }
      out.println("gpucomm " + version());
      return 0;
    }
    Optional<Command> command = find(name);
    if (command.isEmpty()) {
      err.println("gpucomm: unknown command '" + name + "' (see gpucomm --help)");
      return 2;
    }
    try {
      ParsedArgs parsed = ParsedArgs.parse(name, command.get().options(), arguments);
      if (parsed.help()) {
        out.print(Help.of(command.get()));
        return 0;
      }
      return command.get().run(parsed, context);
    } catch (RuntimeException e) {
      RankError error = classify(e);
      if (debug) {
        e.printStackTrace(err);
      }
      String message = error.message();
      err.println(message.startsWith("gpucomm ") ? message : "gpucomm " + name + ": " + message);
      if (debug && unwrap(e) instanceof InvalidJobException invalid) {
        // the line above is the job's first problem; --debug lists the others too
        invalid.lines().stream()
            .skip(1)
            .forEach(line -> err.println("gpucomm " + name + ": " + line));
      }
      return error.exitCode();
    }
  }

  private static Optional<Command> find(String name) {
    return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** The kind and one-line text of a failure, as ranks and commands report it. */
  public static RankError classify(Throwable failure) {
    Throwable e = unwrap(failure);
    if (e instanceof UsageException) {
      return new RankError(RankError.Kind.USAGE, e.getMessage());
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
   * One line for a failure: our own exceptions carry messages written for users; anything else also
   * names its type, which is what a maintainer needs first.
   */
  static String describe(Throwable failure) {
    Throwable e = unwrap(failure);
    String message = e.getMessage();
    boolean ours =
        e.getClass().getName().startsWith("dev.gpucomm.") || e instanceof UncheckedIOException;
    if (ours && message != null && !message.isBlank()) {
      return RankError.oneLine(message);
    }
    return RankError.oneLine(
        e.getClass().getSimpleName() + (message == null ? "" : ": " + message));
  }

  private static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private static String version() {
    String version = Gpucomm.class.getPackage().getImplementationVersion();
    return version != null ? version : "(development build)";
  }
}
