package dev.gpucomm.runtime.report.fetch;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Report;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import dev.gpucomm.runtime.UsageException;
import dev.gpucomm.runtime.bench.NcclTestsTable;
import dev.gpucomm.runtime.files.BoundedFile;
import dev.gpucomm.runtime.files.FileProblem;
import dev.gpucomm.runtime.files.ReplacingFile;
import dev.gpucomm.runtime.files.UnreadableFileException;
import dev.gpucomm.runtime.kube.KubeClients;
import dev.gpucomm.runtime.kube.RetryPolicy;
import dev.gpucomm.runtime.report.ReportCsv;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Finds the report {@code gpucomm report} asks for, in a local report directory or in a job's
 * results ConfigMap, renders it in the requested form, and prints it or writes it whole to a file.
 */
public final class ReportLookup {
  /** The environment variable the operator sets in pods; the default namespace of a job. */
  static final String NAMESPACE_ENV = "GPUCOMM_NAMESPACE";

  /**
   * Someone is waiting for the answer: an API server that is overloaded (429, 5xx) or briefly
   * unreachable gets a few more tries within about two seconds, not the ranks' long patience.
   */
  private static final RetryPolicy RETRIES = new RetryPolicy(3, Duration.ofMillis(250));

  /**
   * The most a local report file may hold. Reports hold one row per size and algorithm, and a
   * CommJob sweeps at most 64 sizes and 8 algorithms, which keeps them far below this; a results
   * ConfigMap holds at most 1 MiB. The cap keeps a wrong file (a device, a huge log) from filling
   * the heap.
   */
  static final int MAX_REPORT_FILE_BYTES = 16 << 20;

  /**
   * The most an answer of the API server may hold: a ConfigMap or CommJob it stores is at most
   * about 1.5 MiB, so this leaves room for any encoding of one while no answer can fill the heap.
   */
  static final long MAX_ANSWER_BYTES = 16 << 20;

  /** The files of a report directory that a report is read from. */
  private static final Set<String> SOURCE_FILES =
      Arrays.stream(ReportFormat.values())
          .map(ReportFormat::sourceKey)
          .collect(Collectors.toUnmodifiableSet());

  /** A namespace's name: a DNS-1123 label. */
  private static final Pattern NAMESPACE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static final int MAX_NAMESPACE_LENGTH = 63;

  /** Stands for a report directory's file that the requested form does not need. */
  private static final String NOT_READ = "";

  private final Map<String, String> env;

  public ReportLookup(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  /** Prints the report, or writes it to the requested file (all of it or nothing). */
  public void deliver(ReportRequest request, PrintStream out) {
    request.output().ifPresent(file -> requireWritableOutput(file, request.target()));
    String text = text(request);
    if (request.output().isPresent()) {
      try {
        ReplacingFile.writeString(request.output().get(), text);
      } catch (IOException e) {
        throw new ReportUnavailableException(
            "cannot write "
                + request.output().get()
                + ": "
                + FileProblem.of(request.output().get(), e));
      }
    } else {
      out.print(text);
      out.flush();
    }
  }

  /** The report's text in the requested form, ending with a newline. */
  public String text(ReportRequest request) {
    if (request.target().isBlank()) {
      // Path.of("") is the working directory, which would be searched for a report instead
      throw new UsageException("the job is blank: give a CommJob's name or a report directory");
    }
    Path directory = Path.of(request.target());
    JobResults results =
        Files.isDirectory(directory)
            ? fromDirectory(directory, request.format())
            : fromCluster(request);
    return render(results, request.format(), request.algorithm());
  }

  /**
   * The report files of {@code directory}: the one the form asked for is read, the others only
   * named (a large latency.svg must not stand in the way of report.json, nor be read for it).
   */
  private static JobResults fromDirectory(Path directory, ReportFormat format) {
    Map<String, String> files = new LinkedHashMap<>();
    for (ReportFormat each : ReportFormat.values()) {
      String name = each.sourceKey();
      Path file = directory.resolve(name);
      if (files.containsKey(name) || !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      files.put(name, name.equals(format.sourceKey()) ? read(file) : NOT_READ);
    }
    if (files.isEmpty()) {
      throw new UsageException(directory + " has no report (report.json, report.md, latency.svg)");
    }
    return new JobResults("", directory.toString(), files);
  }

  /**
   * A name that is there but is no regular file (a pipe, a device, a directory) is refused rather
   * than passed over: it is not the report the user thinks is there. A file whose bytes are not
   * text is a broken report, as a report.json that does not parse is.
   */
  private static String read(Path file) {
    byte[] bytes;
    try {
      bytes = BoundedFile.readBytes(file, MAX_REPORT_FILE_BYTES);
    } catch (UnreadableFileException e) {
      throw new UsageException(file + ": " + e.getMessage());
    }
    try {
      return BoundedFile.utf8Text(bytes);
    } catch (UnreadableFileException e) {
      throw new ReportUnavailableException(file + ": " + e.getMessage());
    }
  }

  private JobResults fromCluster(ReportRequest request) {
    // both go into the API's URLs: anything but a Kubernetes name could reach another object
    if (!CommJob.isJobName(request.target())) {
      throw new UsageException(
          EchoedValue.quoted(request.target())
              + " is neither a report directory nor a job's name (a job's name is lower-case"
              + " letters, digits and '-', starting with a letter, at most "
              + CommJob.MAX_NAME_LENGTH
              + ")");
    }
    // a kubeconfig's credential plugin (user.exec) runs while the configuration is read, and may
    // wait for ever (for a login in a browser, say): --timeout bounds it as it bounds the fetch,
    // each on its own clock, so that reading the configuration does not eat the fetch's time
    Set<Long> childrenBefore = childProcesses();
    ClusterConfig cluster =
        withinTimeout(
                () -> ClusterLookup.find(env, request.kubeconfig(), request.context()),
                request.timeout(),
                () -> {
                  stopChildProcessesOtherThan(childrenBefore);
                  return "the cluster's configuration was not read within %d s (--timeout): does"
                          .formatted(request.timeout().toSeconds())
                      + " a kubeconfig credential plugin (user.exec) wait for input?";
                })
            .orElseThrow(
                () ->
                    new UsageException(
                        "'"
                            + request.target()
                            + "' is not a report directory, and reading job results needs a"
                            + " cluster: none configured ("
                            + ClusterLookup.LOOKED_AT
                            + ")"));
    String namespace = namespace(request, cluster);
    AnswerSizeLimit answerLimit = new AnswerSizeLimit(MAX_ANSWER_BYTES);
    try (KubernetesClient client =
        KubeClients.create(
            RETRIES.applyTo(cluster.config()),
            builder -> builder.addOrReplaceInterceptor(AnswerSizeLimit.NAME, answerLimit))) {
      ResultsFetcher fetcher = new ResultsFetcher(client, cluster.source(), answerLimit);
      return withinTimeout(
          () -> fetcher.fetch(namespace, request.target()),
          request.timeout(),
          () ->
              "the API server %s did not answer within %d s (--timeout)"
                  .formatted(fetcher.server(), request.timeout().toSeconds()));
    } catch (ResultsFetcher.ReportNotFoundException | ResultsFetcher.ApiServerException e) {
      throw new ReportUnavailableException(e.getMessage());
    }
  }

  /**
   * {@code work}'s answer, or a failure saying {@code late} once {@code timeout} has passed: an API
   * server that accepts the connection and never answers, or answers a byte at a time, would hold
   * the command for as long as Fabric8's per-request limits and retries allow, and a credential
   * plugin for as long as it likes. Closing the client then aborts what is still in flight.
   */
  private static <T> T withinTimeout(Callable<T> work, Duration timeout, Supplier<String> late) {
    ExecutorService reader = Executors.newVirtualThreadPerTaskExecutor();
    Future<T> answer = reader.submit(work);
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      answer.cancel(true);
      throw new ReportUnavailableException(late.get());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReportUnavailableException("interrupted while reading the job's report");
    } finally {
      // not close(): that would wait for a read that may never end
      reader.shutdownNow();
    }
  }

  /** The processes this one has started that still run. */
  private static Set<Long> childProcesses() {
    return ProcessHandle.current()
        .children()
        .map(ProcessHandle::pid)
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * Stops, with theirs, the processes this one started that are not in {@code before}: a credential
   * plugin that was given up on would otherwise wait on after this command ends (for a login, say),
   * and one more with every retry. Nothing else starts processes while the configuration is read.
   */
  private static void stopChildProcessesOtherThan(Set<Long> before) {
    ProcessHandle.current()
        .children()
        .filter(child -> !before.contains(child.pid()))
        .forEach(
            plugin -> {
              plugin.descendants().forEach(ProcessHandle::destroy);
              plugin.destroy();
            });
  }

  /** The namespace of the job: -n, then GPUCOMM_NAMESPACE, then the cluster's; each checked. */
  private String namespace(ReportRequest request, ClusterConfig cluster) {
    String namespace;
    String from;
    if (request.namespace().isPresent()) {
      namespace = request.namespace().get();
      from = "-n";
    } else if (env.get(NAMESPACE_ENV) != null && !env.get(NAMESPACE_ENV).isBlank()) {
      namespace = env.get(NAMESPACE_ENV);
      from = NAMESPACE_ENV;
    } else {
      namespace = cluster.namespace();
      from = cluster.source() + " (its namespace)";
    }
    if (namespace.length() > MAX_NAMESPACE_LENGTH || !NAMESPACE_NAME.matcher(namespace).matches()) {
      throw new UsageException(
          from
              + ": "
              + EchoedValue.quoted(namespace)
              + " is not a namespace's name (lower-case letters, digits and '-', at most 63)");
    }
    return namespace;
  }

  static String render(JobResults results, ReportFormat format, Algorithm algorithm) {
    String source =
        results
            .file(format.sourceKey())
            // the report is there, only not in the form asked for: the request is what to change
            .orElseThrow(
                () ->
                    new UsageException(
                        "the report of "
                            + results.job()
                            + " has no "
                            + format.sourceKey()
                            + " (it has "
                            + String.join(", ", results.files().keySet())
                            + ")"));
    if (format == ReportFormat.JSON) {
      parsed(source, results.job()); // a corrupt report.json must not be printed as a report
    }
    String text =
        switch (format) {
          case CSV -> ReportCsv.write(benchmark(source, results.job(), "CSV"));
          case NCCL_TESTS -> ncclTests(benchmark(source, results.job(), "nccl-tests"), algorithm);
          case MD, JSON, SVG -> source;
        };
    return text.endsWith("\n") ? text : text + "\n";
  }

  private static Report parsed(String reportJson, String job) {
    try {
      return ReportJson.parse(reportJson, job + " report.json");
    } catch (IllegalArgumentException e) {
      throw new ReportUnavailableException(e.getMessage());
    }
  }

  /** The benchmark report of {@code reportJson}, for a form that only a benchmark has. */
  private static BenchmarkReport benchmark(String reportJson, String job, String form) {
    Report report = parsed(reportJson, job);
    if (!(report instanceof BenchmarkReport benchmark)) {
      throw new UsageException(
          "the report of "
              + job
              + " is a program run, which has no "
              + form
              + " form: use --format md or json");
    }
    return benchmark;
  }

  private static String ncclTests(BenchmarkReport report, Algorithm algorithm) {
    try {
      return NcclTestsTable.write(report, algorithm);
    } catch (IllegalArgumentException e) {
      // the algorithm asked for is what to change
      throw new UsageException("--algorithm: " + e.getMessage());
    }
  }

  /**
   * Refuses, before anything is read, an output that cannot be a file or would replace one of the
   * files the report is read from (the report would be lost, and the next read of it fail).
   */
  private static void requireWritableOutput(Path file, String target) {
    if (file.toString().isBlank()) {
      throw new UsageException("-o: needs a file name");
    }
    if (Files.isDirectory(file)) {
      throw new UsageException("-o " + file + ": is a directory; name a file");
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw new UsageException(
          "-o "
              + file
              + ": is not a regular file (a device, pipe or socket); name a file, or leave -o out"
              + " to print the report");
    }
    Path folder = file.toAbsolutePath().getParent();
    if (folder != null && Files.exists(folder)) {
      // said now, not after a fetch from the cluster that may take a minute (a missing folder is
      // made as the report is written)
      try {
        ReplacingFile.tryReplacing(file);
      } catch (IOException e) {
        throw new UsageException("-o " + file + ": " + FileProblem.of(file, e));
      }
    }
    Path directory = Path.of(target);
    if (!Files.isDirectory(directory)) {
      return;
    }
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null
          && Files.isDirectory(parent)
          && Files.isSameFile(parent, directory)
          && SOURCE_FILES.contains(file.getFileName().toString())) {
        throw new UsageException(
            "-o " + file + ": is the report's own " + file.getFileName() + "; write elsewhere");
      }
      // a symbolic link to it: the write goes through (over a hard link it only renames)
      for (String source : SOURCE_FILES) {
        Path own = directory.resolve(source);
        if (Files.isSymbolicLink(file) && Files.exists(own) && Files.isSameFile(file, own)) {
          throw new UsageException(
              "-o " + file + ": links to the report's own " + source + "; write elsewhere");
        }
      }
    } catch (IOException e) {
      // Unreadable paths are left to the write, which names them.
    }
  }

  /** The report cannot be had (no such job or report yet, unreachable cluster): exit code 1. */
  public static final class ReportUnavailableException extends RuntimeException {
    public ReportUnavailableException(String message) {
      super(message);
    }
  }
}
