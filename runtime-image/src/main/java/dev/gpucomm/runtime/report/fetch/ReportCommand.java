package dev.gpucomm.runtime.report.fetch;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code gpucomm report <job>}: prints (or saves) a finished job's report, fetched from its results
 * ConfigMap, in the form asked for; for CI artifacts and pull-request comments. The cluster is
 * found like kubectl finds it: --kubeconfig, KUBECONFIG, ~/.kube/config, then the pod's service
 * account.
 */
public final class ReportCommand {
  public static final String USAGE =
      "usage: gpucomm report <job> [-n <namespace>] [--format "
          + ReportFormat.flags()
          + "] [-o <file>] [--kubeconfig <file>] [--context <name>]";

  /** Exit code for a job without a report or an unreachable cluster (2 is for usage errors). */
  public static final int NO_REPORT = 1;

  public static final int USAGE_ERROR = 2;

  private final Map<String, String> environment;
  private final Path home;
  private final Path serviceAccount;

  public ReportCommand(Map<String, String> environment, Path home) {
    this(environment, home, InClusterConfig.SERVICE_ACCOUNT);
  }

  ReportCommand(Map<String, String> environment, Path home, Path serviceAccount) {
    this.environment = Map.copyOf(environment);
    this.home = home;
    this.serviceAccount = serviceAccount;
  }

  /** The parsed command line. */
  record Arguments(
      String job,
      Optional<String> namespace,
      ReportFormat format,
      Optional<Path> output,
      Optional<Path> kubeconfig,
      Optional<String> context) {}

  public int run(List<String> args, PrintStream out, PrintStream err) {
    Arguments arguments;
    try {
      arguments = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("gpucomm report: " + e.getMessage());
      err.println(USAGE);
      return USAGE_ERROR;
    }
    if (arguments == null) {
      out.println(USAGE);
      return 0;
    }
    String text;
    try {
      KubeConnection connection = connection(arguments);
      String namespace = arguments.namespace().orElse(connection.namespace());
      JobResults results = new ResultsFetcher(connection).fetch(namespace, arguments.job());
      text = render(results, arguments.format());
    } catch (KubeConfigException e) {
      err.println("gpucomm report: " + e.getMessage());
      return USAGE_ERROR;
    } catch (ResultsFetcher.ReportNotFoundException
        | ResultsFetcher.ApiServerException
        | IllegalArgumentException e) {
      err.println("gpucomm report: " + e.getMessage());
      return NO_REPORT;
    }
    if (arguments.output().isPresent()) {
      try {
        writeAtomically(arguments.output().get(), text);
      } catch (IOException e) {
        err.println(
            "gpucomm report: cannot write " + arguments.output().get() + ": " + e.getMessage());
        return NO_REPORT;
      }
    } else {
      out.print(text);
      out.flush();
    }
    return 0;
  }

  static Arguments parse(List<String> args) {
    String job = null;
    Optional<String> namespace = Optional.empty();
    ReportFormat format = ReportFormat.MD;
    Optional<Path> output = Optional.empty();
    Optional<Path> kubeconfig = Optional.empty();
    Optional<String> context = Optional.empty();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name =
          arg.contains("=") && arg.startsWith("--") ? arg.substring(0, arg.indexOf('=')) : arg;
      Optional<String> inline =
          arg.contains("=") && arg.startsWith("--")
              ? Optional.of(arg.substring(arg.indexOf('=') + 1))
              : Optional.empty();
      switch (name) {
        case "-h", "--help" -> {
          return null;
        }
        case "-n", "--namespace" -> {
          namespace = Optional.of(value(args, i, inline, name));
          i += inline.isPresent() ? 0 : 1;
        }
        case "--format", "-f" -> {
          String flag = value(args, i, inline, name);
          i += inline.isPresent() ? 0 : 1;
          format =
              ReportFormat.fromFlag(flag)
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "--format " + flag + ": expected one of " + ReportFormat.flags()));
        }
        case "-o", "--output" -> {
          output = Optional.of(Path.of(value(args, i, inline, name)));
          i += inline.isPresent() ? 0 : 1;
        }
        case "--kubeconfig" -> {
          kubeconfig = Optional.of(Path.of(value(args, i, inline, name)));
          i += inline.isPresent() ? 0 : 1;
        }
        case "--context" -> {
          context = Optional.of(value(args, i, inline, name));
          i += inline.isPresent() ? 0 : 1;
        }
        default -> {
          if (arg.startsWith("-")) {
            throw new IllegalArgumentException("unknown option " + arg);
          }
          if (job != null) {
            throw new IllegalArgumentException("one job at a time: got " + job + " and " + arg);
          }
          job = arg;
        }
      }
    }
    if (job == null) {
      throw new IllegalArgumentException("which job? give the CommJob's name");
    }
    return new Arguments(job, namespace, format, output, kubeconfig, context);
  }

  private static String value(List<String> args, int i, Optional<String> inline, String name) {
    if (inline.isPresent()) {
      return inline.get();
    }
    if (i + 1 >= args.size() || args.get(i + 1).isEmpty()) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    return args.get(i + 1);
  }

  private KubeConnection connection(Arguments arguments) {
    if (arguments.kubeconfig().isPresent()) {
      Path file = arguments.kubeconfig().get();
      if (!Files.isRegularFile(file)) {
        throw new KubeConfigException("--kubeconfig " + file + ": no such file");
      }
      return KubeConfigFile.load(List.of(file), arguments.context());
    }
    String list = environment.get("KUBECONFIG");
    if (list != null && !list.isBlank()) {
      List<Path> files = new ArrayList<>();
      Arrays.stream(list.split(java.io.File.pathSeparator))
          .filter(s -> !s.isBlank())
          .map(Path::of)
          .forEach(files::add);
      return KubeConfigFile.load(files, arguments.context());
    }
    Path defaultFile = home.resolve(".kube").resolve("config");
    if (Files.isRegularFile(defaultFile)) {
      return KubeConfigFile.load(List.of(defaultFile), arguments.context());
    }
    if (InClusterConfig.available(environment, serviceAccount)) {
      return InClusterConfig.load(environment, serviceAccount);
    }
    throw new KubeConfigException(
        "no cluster configured: no --kubeconfig, KUBECONFIG, "
            + defaultFile
            + " or pod service account");
  }

  static String render(JobResults results, ReportFormat format) {
    String source =
        results
            .file(format.sourceKey())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the report of "
                            + results.job()
                            + " has no "
                            + format.sourceKey()
                            + " (it has "
                            + String.join(", ", results.files().keySet())
                            + ")"));
    String text = format == ReportFormat.CSV ? ReportCsv.fromReportJson(source) : source;
    return text.endsWith("\n") ? text : text + "\n";
  }

  /** Writes the whole file or nothing: a CI step never finds half a report. */
  private static void writeAtomically(Path file, String text) throws IOException {
    Path absolute = file.toAbsolutePath();
    Files.createDirectories(absolute.getParent());
    Path partial =
        Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".partial");
    try {
      Files.writeString(partial, text, StandardCharsets.UTF_8);
      try {
        Files.move(
            partial, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(partial);
    }
  }
}
