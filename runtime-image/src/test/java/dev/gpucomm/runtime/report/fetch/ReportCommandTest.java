package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.report.BenchmarkReport;
import dev.gpucomm.runtime.report.Measurement;
import dev.gpucomm.runtime.report.SizeResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {
  private static final String TOKEN = "ci-token-3f9a";

  @TempDir Path home;
  FakeApiServer api;
  Path kubeconfig;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void startApiServer() throws Exception {
    api = FakeApiServer.http(TOKEN);
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
    api.putResults(
        "bench",
        "ar-tp2",
        Map.of(
            "report.json", reportJson(),
            "report.md", "# ar-tp2\n\n| size | chosen |\n",
            "latency.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"));
  }

  @AfterEach
  void stopApiServer() {
    api.close();
  }

  @Test
  void printsTheMarkdownReportOfAJobInTheContextsNamespace() {
    int exit = run("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(exit).isZero();
    assertThat(out()).isEqualTo("# ar-tp2\n\n| size | chosen |\n");
    assertThat(api.requests)
        .containsExactly("GET /api/v1/namespaces/bench/configmaps/ar-tp2-results");
  }

  @Test
  void findsTheClusterThroughKubeconfigInTheEnvironment() {
    int exit =
        new ReportCommand(Map.of("KUBECONFIG", "/nonexistent:" + kubeconfig), home)
            .run(List.of("ar-tp2", "--format", "svg"), print(out), print(err));

    assertThat(exit).isZero();
    assertThat(out()).startsWith("<svg");
  }

  @Test
  void savesTheSvgPlotToAFile() throws Exception {
    Path plot = home.resolve("artifacts/latency.svg");

    int exit =
        run("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--format=svg", "-o", plot.toString());

    assertThat(exit).isZero();
    assertThat(Files.readString(plot)).startsWith("<svg").endsWith("</svg>\n");
    assertThat(out()).isEmpty();
    try (var leftovers = Files.list(plot.getParent())) {
      assertThat(leftovers).containsExactly(plot);
    }
  }

  @Test
  void turnsTheJsonReportIntoCsvWithOneRowPerSizeAndAlgorithm() {
    int exit =
        run("ar-tp2", "-n", "bench", "--format", "csv", "--kubeconfig", kubeconfig.toString());

    assertThat(exit).isZero();
    assertThat(out().lines().toList())
        .containsExactly(
            String.join(",", ReportCsv.COLUMNS),
            "allreduce,bf16,2,1048576,64,oneshot,true,12.5,,83.9,83.9,0.0039,5",
            "allreduce,bf16,2,1048576,64,ring,false,20.25,,51.8,51.8,0.0,5");
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

    int exit = run("hung", "--kubeconfig", kubeconfig.toString());

    assertThat(exit).isEqualTo(ReportCommand.NO_REPORT);
    assertThat(err())
        .isEqualTo(
            "gpucomm report: CommJob hung has no report yet: phase Failed, reason Timeout: not"
                + " finished after 60 s (ConfigMap hung-results not found)\n");
  }

  @Test
  void saysSoWhenTheCredentialsAreRefused() {
    int exit = run("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--context", "other");

    assertThat(exit).isEqualTo(ReportCommand.NO_REPORT);
    assertThat(err()).startsWith("gpucomm report: the API server " + api.url() + " did not accept");
  }

  @Test
  void usageErrorsAreOneLineAndExitTwo() {
    assertThat(run()).isEqualTo(2);
    assertThat(err()).startsWith("gpucomm report: which job? give the CommJob's name\nusage:");
    err.reset();
    assertThat(run("ar-tp2", "--format", "pdf")).isEqualTo(2);
    assertThat(err()).startsWith("gpucomm report: --format pdf: expected one of md|json|csv|svg\n");
    err.reset();
    assertThat(run("ar-tp2", "--kubeconfig", home.resolve("missing").toString())).isEqualTo(2);
    assertThat(err())
        .isEqualTo("gpucomm report: --kubeconfig " + home.resolve("missing") + ": no such file\n");
    err.reset();
    assertThat(run("ar-tp2", "-n")).isEqualTo(2);
    assertThat(err()).startsWith("gpucomm report: -n needs a value\n");
  }

  @Test
  void withNoClusterConfiguredItSaysWhereItLooked() {
    int exit = run("ar-tp2");

    assertThat(exit).isEqualTo(2);
    assertThat(err())
        .startsWith("gpucomm report: no cluster configured: no --kubeconfig, KUBECONFIG,");
  }

  private int run(String... args) {
    return new ReportCommand(Map.of(), home, home.resolve("no-service-account"))
        .run(List.of(args), print(out), print(err));
  }

  private static PrintStream print(ByteArrayOutputStream bytes) {
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static String reportJson() {
    var report =
        new BenchmarkReport(
            BenchmarkReport.SCHEMA_VERSION,
            "ar-tp2",
            Collective.ALLREDUCE,
            DType.BF16,
            8192,
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
    try {
      return new ObjectMapper().writeValueAsString(report);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
