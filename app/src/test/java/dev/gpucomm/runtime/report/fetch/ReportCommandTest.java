package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.runtime.cli.Gpucomm;
import dev.gpucomm.runtime.report.ReportCsv;
import dev.gpucomm.runtime.report.ReportFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpucomm report} as CI runs it: a job's report from the cluster of a kubeconfig. */
class ReportCommandTest {
  private static final String TOKEN = "ci-token-3f9a";
  private static final BenchmarkReport REPORT = benchmarkReport();

  @TempDir Path home;
  FakeApiServer api;
  Path kubeconfig;

  @BeforeEach
  void startApiServer() throws Exception {
    api = FakeApiServer.http(Optional.of(TOKEN));
    kubeconfig = home.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        current-context: ci
        contexts:
        - name: ci
          context: {cluster: kind, user: ci-bot, namespace: bench}
        - name: other
          context: {cluster: kind, user: nobody, namespace: elsewhere}
        clusters:
        - name: kind
          cluster: {server: "%s"}
        users:
        - name: ci-bot
          user: {token: %s}
        - name: nobody
          user: {token: wrong}
        """
            .formatted(api.url(), TOKEN));
    api.putResults("bench", "ar-tp2", ReportFiles.forConfigMap(REPORT));
  }

  @AfterEach
  void stopApiServer() {
    api.close();
  }

  @Test
  void printsTheMarkdownReportOfAJobInTheContextsNamespace() {
    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    assertThat(api.requests)
        .containsExactly("GET /api/v1/namespaces/bench/configmaps/ar-tp2-results");
  }

  @Test
  void findsTheClusterThroughKubeconfigInTheEnvironment() {
    Result result =
        run(Map.of("KUBECONFIG", "/nonexistent:" + kubeconfig), "report", "ar-tp2", "-f", "svg");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("<svg").endsWith("</svg>\n");
  }

  @Test
  void savesTheSvgPlotToAFileWholeOrNotAtAll() throws Exception {
    Path plot = home.resolve("artifacts/latency.svg");

    Result result =
        report(
            "ar-tp2", "--kubeconfig", kubeconfig.toString(), "--format=svg", "-o", plot.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(Files.readString(plot)).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.SVG));
    assertThat(result.out()).isEmpty();
    try (var files = Files.list(plot.getParent())) {
      assertThat(files).containsExactly(plot);
    }
  }

  @Test
  void derivesTheCsvFromTheJsonReportWithOneRowPerSizeAndAlgorithm() {
    Result result =
        report("ar-tp2", "-n", "bench", "--format", "csv", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportCsv.write(REPORT));
    assertThat(result.out().lines()).hasSize(1 + 2).first().isEqualTo(ReportCsv.HEADER);
  }

  @Test
  void readsALocalReportDirectoryInEveryForm() throws Exception {
    Path directory = home.resolve("report");
    Files.createDirectories(directory);
    for (var file : ReportFiles.render(REPORT).entrySet()) {
      Files.writeString(directory.resolve(file.getKey()), file.getValue());
    }

    assertThat(report(directory.toString()).out())
        .isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    assertThat(report(directory.toString(), "--format", "json").out())
        .isEqualTo(ReportJson.write(REPORT));
    assertThat(report(directory.toString(), "--format", "csv").out())
        .isEqualTo(ReportCsv.write(REPORT));
  }

  @Test
  void aCorruptJsonReportIsNotPrintedAsOne() throws Exception {
    Path directory = Files.createDirectories(home.resolve("broken"));
    Files.writeString(directory.resolve(ReportFiles.JSON), "{\"collective\": \"allred");

    Result result = report(directory.toString(), "--format", "json");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).startsWith("gpucomm report: ").contains("report.json");
    assertThat(result.err().lines()).hasSize(1);
  }

  @Test
  void inAPodItReadsTheApiServerOfGpucommKubeApiAndTheJobsNamespace() throws Exception {
    try (FakeApiServer open = FakeApiServer.http(Optional.empty())) {
      open.putResults("team-a", "ar-tp2", ReportFiles.forConfigMap(REPORT));

      Result result =
          run(
              Map.of("GPUCOMM_KUBE_API", open.url(), "GPUCOMM_NAMESPACE", "team-a"),
              "report",
              "ar-tp2",
              "--format",
              "json");

      assertThat(result.exitCode()).isZero();
      assertThat(result.out()).isEqualTo(ReportJson.write(REPORT));
    }
  }

  @Test
  void explainsAMissingReportWithTheJobsFailure() {
    api.put(
        "/apis/gpucomm.dev/v1alpha1/namespaces/bench/commjobs/hung",
        Map.of(
            "status",
            Map.of(
                "phase",
                "Failed",
                "conditions",
                List.of(
                    Map.of(
                        "type", "Failed",
                        "status", "True",
                        "reason", "Timeout",
                        "message", "not finished after 60 s")))));

    Result result = report("hung", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: CommJob hung has no report yet: phase Failed, reason Timeout: not"
                + " finished after 60 s (ConfigMap hung-results not found)\n");
  }

  @Test
  void saysSoWhenTheCredentialsAreRefused() {
    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--context", "other");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("gpucomm report: the API server " + api.url() + " did not accept");
  }

  @Test
  void usageErrorsAreOneLineAndExitTwo() {
    assertUsageError(report(), "gpucomm report: name one report directory or job");
    assertUsageError(
        report("ar-tp2", "--format", "pdf"),
        "gpucomm report: --format: 'pdf' is not one of md|json|csv|svg");
    assertUsageError(
        report("ar-tp2", "--kubeconfig", home.resolve("missing").toString()),
        "gpucomm report: --kubeconfig " + home.resolve("missing") + ": no such file");
    assertUsageError(report("ar-tp2", "-n"), "gpucomm report: -n needs a value");
    assertUsageError(
        report("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--context", "prod"),
        "gpucomm report: " + kubeconfig + ": no context named prod");
  }

  @Test
  void withNoClusterConfiguredItSaysWhereItLooked() {
    Result result = report("ar-tp2");

    assertUsageError(
        result,
        "gpucomm report: 'ar-tp2' is not a report directory, and reading job results needs a"
            + " cluster: none configured (--kubeconfig, KUBECONFIG, ~/.kube/config or a pod's"
            + " service account)");
  }

  private static void assertUsageError(Result result, String message) {
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).startsWith(message);
    assertThat(result.err().lines()).hasSize(1);
  }

  record Result(int exitCode, String out, String err) {}

  private Result report(String... args) {
    String[] line = new String[args.length + 1];
    line[0] = "report";
    System.arraycopy(args, 0, line, 1, args.length);
    return run(Map.of(), line);
  }

  private Result run(Map<String, String> extraEnv, String... args) {
    Map<String, String> env = new HashMap<>(extraEnv);
    env.put("HOME", home.toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Gpucomm.execute(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            env,
            false);
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static BenchmarkReport benchmarkReport() {
    return new BenchmarkReport(
        BenchmarkReport.SCHEMA_VERSION,
        "ar-tp2",
        Collective.ALLREDUCE,
        DType.BF16,
        8192,
        false,
        2,
        2,
        "cpu",
        "cpu",
        "node-a",
        "trtllm",
        "2026-01-01T00:00:00Z",
        List.of(
            new SizeResult(
                1048576,
                64,
                Algorithm.ONESHOT,
                "commMB 2 <= 512",
                List.of(
                    new Measurement(Algorithm.ONESHOT, 12.5, null, 83.9, 83.9, 0.0039, 5),
                    new Measurement(Algorithm.RING, 20.25, null, 51.8, 51.8, 0.0, 5)))));
  }
}
