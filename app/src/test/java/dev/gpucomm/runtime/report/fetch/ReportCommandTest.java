package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.report.BenchmarkReport;
import dev.gpucomm.api.v1alpha1.report.Measurement;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import dev.gpucomm.runtime.bench.NcclTestsTable;
import dev.gpucomm.runtime.cli.Gpucomm;
import dev.gpucomm.runtime.kube.MockApiServer;
import dev.gpucomm.runtime.report.ReportCsv;
import dev.gpucomm.runtime.report.ReportFiles;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code gpucomm report} as CI runs it: a job's report from the cluster of a kubeconfig, served by
 * Fabric8's mock API server.
 */
class ReportCommandTest {
  private static final String TOKEN = "ci-token-3f9a";
  private static final String RESULTS_PATH = "/api/v1/namespaces/bench/configmaps/ar-tp2-results";
  private static final BenchmarkReport REPORT = benchmarkReport();

  @TempDir Path home;
  KubernetesMockServer api;
  KubernetesClient admin;
  String url;
  Path kubeconfig;

  /**
   * Fabric8 reads KUBECONFIG and the in-cluster settings from the process environment, or first
   * from system properties of the same names: these keep the machine's own out of the tests.
   */
  @BeforeEach
  void noClusterOfTheMachine() {
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, home.resolve("no-kubeconfig").toString());
    System.setProperty(Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY, "false");
  }

  @AfterEach
  void restoreProperties() {
    System.clearProperty(Config.KUBERNETES_KUBECONFIG_FILE);
    System.clearProperty(Config.KUBERNETES_AUTH_TRYSERVICEACCOUNT_SYSTEM_PROPERTY);
  }

  @BeforeEach
  void startApiServer() throws Exception {
    api = MockApiServer.start();
    admin = api.createClient();
    url = MockApiServer.url(api);
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
            .formatted(url, TOKEN));
    putResults("bench", "ar-tp2", ReportFiles.forConfigMap(REPORT));
  }

  @AfterEach
  void stopApiServer() {
    admin.close();
    api.destroy();
  }

  @Test
  void printsTheMarkdownReportOfAJobInTheContextsNamespace() throws Exception {
    int before = api.getRequestCount();

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    assertThat(api.getRequestCount() - before).isEqualTo(1);
    RecordedRequest request = api.getLastRequest();
    assertThat(request.getMethod() + " " + request.getPath()).isEqualTo("GET " + RESULTS_PATH);
    assertThat(request.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
  }

  @Test
  void findsTheClusterThroughTheKubeconfigList() {
    // a name that is not there, and /dev/null (the usual "none"), are passed over
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, "/nonexistent:/dev/null:" + kubeconfig);

    Result result = report("ar-tp2", "--format", "svg");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("<svg").endsWith("</svg>\n");
  }

  @Test
  void aKubeconfigListNamingSomethingThatIsNoFileIsRefusedNotPassedOver() {
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, home + ":" + kubeconfig);

    assertUsageError(
        report("ar-tp2", "--format", "svg"), "gpucomm report: " + home + ": is a directory");
  }

  @Test
  void savesTheSvgPlotToAFileWholeOrNotAtAll() throws Exception {
    Path plot = home.resolve("artifacts/latency.svg");

    Result result =
        report(
            "ar-tp2", "--kubeconfig", kubeconfig.toString(), "--format=svg", "-o", plot.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(Files.readString(plot)).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.SVG));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(plot)))
        .as("readable by all, like the report it came from")
        .isEqualTo("rw-r--r--");
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
  void printsALocalReportAsNcclTestsPrintsItsTableForTheAlgorithmAsked() throws Exception {
    Path directory = Files.createDirectories(home.resolve("report"));
    for (var file : ReportFiles.render(REPORT).entrySet()) {
      Files.writeString(directory.resolve(file.getKey()), file.getValue());
    }

    Result result = report(directory.toString(), "--format", "nccl-tests", "--algorithm", "ring");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(NcclTestsTable.write(REPORT, Algorithm.RING));
    assertThat(result.out().lines())
        .contains(
            "     1048576        524288  bfloat16     sum      -1    20.25   51.80   51.80       0"
                + "      N/A     N/A     N/A     N/A",
            "# Avg bus bandwidth    : 51.8 ");
  }

  @Test
  void aJobsNcclTestsTableShowsWhatTheHeuristicChoseByDefault() {
    Result result =
        report("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--format", "nccl-tests");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains("# algorithm auto (heuristic trtllm): oneshot at 1048576 B\n")
        .contains(
            "     1048576        524288  bfloat16     sum      -1    12.50   83.90   83.90       0")
        .contains("# Avg bus bandwidth    : 83.9 \n");
  }

  @Test
  void helpSaysWhatTheNcclTestsFormHoldsAndThatNothingWrongIsEverCounted() {
    Result help = report("--help");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out())
        .contains("[--format md|json|csv|svg|nccl-tests", "[--algorithm A]]")
        .contains("The nccl-tests form (--format nccl-tests):")
        .contains("(# Avg bus bandwidth)")
        .contains("#wrong           always 0: a wrong result fails the job")
        .contains("--algorithm=A");
  }

  @Test
  void anAlgorithmIsAskedOfTheNcclTestsFormOnlyAndMustBeInTheReport() throws Exception {
    Path directory = Files.createDirectories(home.resolve("report"));
    Files.writeString(
        directory.resolve(ReportFiles.JSON), ReportFiles.render(REPORT).get(ReportFiles.JSON));

    assertUsageError(
        report(directory.toString(), "--format", "csv", "--algorithm", "ring"),
        "gpucomm report: --algorithm: applies to --format nccl-tests only (the other forms show"
            + " all)");
    assertUsageError(
        report(directory.toString(), "--format", "nccl-tests", "--algorithm", "fastest"),
        "gpucomm report: --algorithm: 'fastest' is not one of auto, nccl, oneshot, twoshot, ring,"
            + " hierarchical, copyengine");
    assertUsageError(
        report(directory.toString(), "--format", "nccl-tests", "--algorithm", "twoshot"),
        "gpucomm report: --algorithm: the report of 'ar-tp2' has no twoshot measurement (it has"
            + " oneshot, ring)");
  }

  @Test
  void aBlankJobIsAUsageErrorNotTheWorkingDirectory() throws Exception {
    assertUsageError(
        report(""),
        "gpucomm report: the job is blank: give a CommJob's name or a report directory");
  }

  @Test
  void aFormatTheReportDirectoryDoesNotHoldIsAUsageError() throws Exception {
    Path directory = Files.createDirectories(home.resolve("markdown-only"));
    Files.writeString(
        directory.resolve(ReportFiles.MARKDOWN),
        ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));

    Result result = report(directory.toString(), "--format", "svg");

    assertUsageError(
        result,
        "gpucomm report: the report of " + directory + " has no latency.svg (it has report.md)");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void anOutputThatWouldReplaceTheReportsOwnFileOrIsADirectoryIsRefusedAndChangesNothing()
      throws Exception {
    Path directory = home.resolve("kept");
    Files.createDirectories(directory);
    for (var file : ReportFiles.render(REPORT).entrySet()) {
      Files.writeString(directory.resolve(file.getKey()), file.getValue());
    }
    Path json = directory.resolve(ReportFiles.JSON);

    assertUsageError(
        report(directory.toString(), "-o", json.toString()),
        "gpucomm report: -o " + json + ": is the report's own report.json; write elsewhere");
    assertUsageError(
        report(directory.toString(), "-o", home.toString()),
        "gpucomm report: -o " + home + ": is a directory; name a file");
    Path link = Files.createSymbolicLink(home.resolve("latest.json"), json);
    assertUsageError(
        report(directory.toString(), "-o", link.toString()),
        "gpucomm report: -o " + link + ": links to the report's own report.json; write elsewhere");
    assertThat(json).hasContent(ReportFiles.render(REPORT).get(ReportFiles.JSON));
    assertThat(report(directory.toString(), "--format", "json").exitCode()).isZero();
  }

  @Test
  void aHardLinkToTheReportsOwnFileMayBeWrittenSinceOnlyItsNameIsReplaced() throws Exception {
    Path directory = Files.createDirectories(home.resolve("linked"));
    for (var file : ReportFiles.render(REPORT).entrySet()) {
      Files.writeString(directory.resolve(file.getKey()), file.getValue());
    }
    Path json = directory.resolve(ReportFiles.JSON);
    String before = Files.readString(json);
    Path hardLink = Files.createLink(home.resolve("figures.csv"), json);

    Result result = report(directory.toString(), "--format", "csv", "-o", hardLink.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(hardLink).content().startsWith("collective,");
    assertThat(json).hasContent(before);
  }

  @Test
  void anOutputThatCannotBeWrittenSaysWhyOfTheOutputAndLeavesNothingBeside() throws Exception {
    Path directory = reportDirectory();
    Path aFile = Files.writeString(home.resolve("a-file"), "");
    Path underAFile = aFile.resolve("report.md");

    Result result = report(directory.toString(), "-o", underAFile.toString());

    assertThat(result.exitCode()).as(result.err()).isEqualTo(2);
    assertThat(result.err())
        .isEqualTo("gpucomm report: -o " + underAFile + ": " + aFile + ": not a directory\n");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aPipeAsTheOutputIsRefusedAndLeftAPipe() throws Exception {
    Path directory = reportDirectory();
    Path pipe = home.resolve("pipe");
    assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();

    assertUsageError(
        report(directory.toString(), "-o", pipe.toString()),
        "gpucomm report: -o "
            + pipe
            + ": is not a regular file (a device, pipe or socket); name a file, or leave -o out to"
            + " print the report");
    assertThat(Files.isRegularFile(pipe)).isFalse();
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aFolderThatTakesNoNewFileIsSaidOfTheOutputNotOfTheTemporaryFileBesideIt() throws Exception {
    Path directory = reportDirectory();

    Result result = report(directory.toString(), "-o", "/proc/report.md");

    assertThat(result.exitCode()).as(result.err()).isEqualTo(2);
    assertThat(result.err()).isEqualTo("gpucomm report: -o /proc/report.md: no such file\n");
  }

  /** A report directory holding REPORT's report.md, the form report prints by default. */
  private Path reportDirectory() throws IOException {
    Path directory = Files.createDirectories(home.resolve("kept"));
    Files.writeString(
        directory.resolve(ReportFiles.MARKDOWN),
        ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    return directory;
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
  void aReportFileThatIsNotTextIsABrokenReportAsACorruptJsonIs() throws Exception {
    Path directory = Files.createDirectories(home.resolve("binary"));
    Path markdown = Files.write(directory.resolve(ReportFiles.MARKDOWN), new byte[] {(byte) 0xff});

    Result result = report(directory.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("gpucomm report: " + markdown + ": not UTF-8 text\n");
  }

  @Test
  void onlyTheFileOfTheFormAskedForIsReadSoAnOversizedPlotDoesNotBlockTheJson() throws Exception {
    Path directory = Files.createDirectories(home.resolve("large-plot"));
    Files.writeString(
        directory.resolve(ReportFiles.JSON), ReportFiles.render(REPORT).get(ReportFiles.JSON));
    try (var plot = new RandomAccessFile(directory.resolve("latency.svg").toFile(), "rw")) {
      plot.setLength(ReportLookup.MAX_REPORT_FILE_BYTES + 1L);
    }

    Result json = report(directory.toString(), "--format", "json");
    Result svg = report(directory.toString(), "--format", "svg");

    assertThat(json.exitCode()).as(json.err()).isZero();
    assertThat(json.out()).isEqualTo(ReportJson.write(REPORT));
    assertUsageError(
        svg, "gpucomm report: " + directory.resolve("latency.svg") + ": larger than 16 MiB");
  }

  @Test
  void inAPodItReadsTheApiServerOfGpucommKubeApiAndTheJobsNamespace() throws Exception {
    putResults("team-a", "ar-tp2", ReportFiles.forConfigMap(REPORT));

    Result result =
        run(
            Map.of("GPUCOMM_KUBE_API", url, "GPUCOMM_NAMESPACE", "team-a"),
            "report",
            "ar-tp2",
            "--format",
            "json");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportJson.write(REPORT));
  }

  @Test
  void explainsAMissingReportWithTheJobsFailure() {
    givenCommJob(
        "hung",
        Map.of(
            "phase",
            "Failed",
            "conditions",
            List.of(
                Map.of(
                    "type", "Failed",
                    "status", "True",
                    "reason", "Timeout",
                    "message", "not finished after 60 s"))));

    Result result = report("hung", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: CommJob hung has no report yet: phase Failed, reason Timeout: not"
                + " finished after 60 s (ConfigMap hung-results not found)\n");
  }

  @Test
  void aReportOfARunTheJobRestartedFromIsNotPrintedAsTheJobs() {
    putResults("bench", "ar-tp4", ReportFiles.forConfigMap(REPORT), "0");
    givenCommJob("ar-tp4", Map.of("phase", "Running", "restarts", 1));

    Result result = report("ar-tp4", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: CommJob ar-tp4 has no report of its run 1 yet: phase Running;"
                + " ConfigMap ar-tp4-results holds the report of run 0\n");
  }

  @Test
  void aReportOfARunOfAJobThatFailedSinceSaysWhyTheJobFailed() {
    putResults("bench", "ar-tp4", ReportFiles.forConfigMap(REPORT), "x");
    givenCommJob(
        "ar-tp4",
        Map.of(
            "phase",
            "Failed",
            "restarts",
            2,
            "conditions",
            List.of(
                Map.of(
                    "type", "Failed",
                    "status", "True",
                    "reason", "RankFailed",
                    "message", "no restart left"))));

    Result result = report("ar-tp4", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: CommJob ar-tp4 has no report of its run 2 yet: phase Failed, reason"
                + " RankFailed: no restart left; ConfigMap ar-tp4-results holds the report of run"
                + " 'x'\n");
  }

  @Test
  void aStampedReportIsNotPrintedWhenItsJobCannotBeRead() {
    putResults("bench", "ar-tp4", ReportFiles.forConfigMap(REPORT), "0");
    api.expect()
        .get()
        .withPath("/apis/gpucomm.dev/v1alpha1/namespaces/bench/commjobs/ar-tp4")
        .andReturn(403, MockApiServer.status(403, "Forbidden", "commjobs is forbidden"))
        .always();

    Result result = report("ar-tp4", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("gpucomm report: forbidden: commjobs is forbidden\n");
  }

  @Test
  void aReportOfTheJobsCurrentRunIsPrinted() {
    putResults("bench", "ar-tp4", ReportFiles.forConfigMap(REPORT), "1");
    givenCommJob("ar-tp4", Map.of("phase", "Succeeded", "restarts", 1));

    Result result = report("ar-tp4", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
  }

  @Test
  void aStampedReportWhoseJobIsGoneIsStillPrinted() {
    putResults("bench", "ar-tp4", ReportFiles.forConfigMap(REPORT), "2");

    Result result = report("ar-tp4", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
  }

  @Test
  void aJobThatDoesNotExistIsNamed() {
    Result result = report("ar-tp9", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: no CommJob ar-tp9 in namespace bench (and no ConfigMap"
                + " ar-tp9-results)\n");
  }

  @Test
  void anAnswerLargerThanAnyObjectTheApiServerStoresIsCutOffNotRead() {
    String endless =
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"data\": {\"report.json\": \""
            + "x".repeat((int) ReportLookup.MAX_ANSWER_BYTES)
            + "\"}}";
    api.expect()
        .get()
        .withPath("/api/v1/namespaces/bench/configmaps/ar-big-results")
        .andReturn(200, endless)
        .always();

    Result result = report("ar-big", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: get configmaps bench/ar-big-results: the API server "
                + url
                + " answered with more than 16 MiB, which no such object holds\n");
  }

  @Test
  void saysSoWhenTheCredentialsAreRefused() {
    api.expect()
        .get()
        .withPath("/api/v1/namespaces/elsewhere/configmaps/ar-tp2-results")
        .andReturn(401, MockApiServer.status(401, "Unauthorized", "Unauthorized"))
        .always();

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--context", "other");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("gpucomm report: the API server " + url + " did not accept the credentials of")
        .contains("(context other)");
    assertThat(result.err().lines()).hasSize(1);
  }

  @Test
  void aForbiddenReadIsOneLineAndNotRetried() {
    api.expect()
        .get()
        .withPath(RESULTS_PATH)
        .andReturn(
            403,
            MockApiServer.status(
                403,
                "Forbidden",
                "configmaps \"ar-tp2-results\" is forbidden: User \"ci-bot\" cannot get resource"))
        .always();
    int before = api.getRequestCount();

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: forbidden: configmaps \"ar-tp2-results\" is forbidden: User"
                + " \"ci-bot\" cannot get resource\n");
    assertThat(api.getRequestCount() - before).isEqualTo(1);
  }

  @Test
  void anOverloadedApiServerIsAskedAgain() {
    api.expect()
        .get()
        .withPath(RESULTS_PATH)
        .andReturn(429, MockApiServer.status(429, "TooManyRequests", "slow down"))
        .once();
    api.expect()
        .get()
        .withPath(RESULTS_PATH)
        .andReturn(503, MockApiServer.status(503, "ServiceUnavailable", "try again"))
        .once();
    int before = api.getRequestCount();

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    assertThat(api.getRequestCount() - before).isEqualTo(3);
  }

  @Test
  void aUserWhoseTokenComesFromAnExecPluginGetsIt() throws Exception {
    // As on EKS, GKE and AKS: kubectl (and gpucomm) run a command that prints an ExecCredential.
    Path plugin = home.resolve("cloud-login");
    Files.writeString(
        plugin,
        """
        #!/bin/sh
        echo '{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",'
        echo ' "status": {"token": "exec-token-71c2"}}'
        """);
    Path cloudKubeconfig = kubeconfigWithPlugin(plugin, "[token, --cluster, gpu-bench]");

    Result result = report("ar-tp2", "--kubeconfig", cloudKubeconfig.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEqualTo(ReportFiles.render(REPORT).get(ReportFiles.MARKDOWN));
    assertThat(api.getLastRequest().getHeader("Authorization")).isEqualTo("Bearer exec-token-71c2");
  }

  @Test
  void theProxyOfTheKubeconfigIsUsed() throws Exception {
    // The API server's name resolves nowhere: a request for it that arrives at the proxy (here the
    // mock server, standing in) can only have been sent there because of proxy-url.
    Path proxied =
        writeKubeconfig(
            "server: http://kube-apiserver.invalid:6443\n    proxy-url: " + url, "token: " + TOKEN);
    int before = api.getRequestCount();

    report("ar-tp2", "--kubeconfig", proxied.toString());

    assertThat(api.getRequestCount()).isGreaterThan(before);
    RecordedRequest results = null;
    // every request the server got, oldest first, up to the first for the results
    for (RecordedRequest request = api.takeRequest(1, TimeUnit.SECONDS);
        request != null && results == null;
        request = api.takeRequest(100, TimeUnit.MILLISECONDS)) {
      results = request.getPath().endsWith(RESULTS_PATH) ? request : null;
    }
    assertThat(results).isNotNull();
    assertThat(results.getHeader("Host")).isEqualTo("kube-apiserver.invalid:6443");
    assertThat(results.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anApiServerThatNeverAnswersIsGivenUpOnAtTheTimeout() throws Exception {
    // it takes the connection and says nothing: Fabric8 alone would wait, and retry, for minutes
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual()
          .start(
              () -> {
                List<Socket> held = new ArrayList<>();
                try {
                  while (true) {
                    held.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      String server = "http://127.0.0.1:" + silent.getLocalPort();
      long start = System.nanoTime();

      Result result =
          run(
              Map.of("GPUCOMM_KUBE_API", server, "GPUCOMM_NAMESPACE", "bench"),
              "report",
              "ar-tp2",
              "--timeout",
              "2");

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err())
          .isEqualTo(
              "gpucomm report: the API server "
                  + server
                  + " did not answer within 2 s (--timeout)"
                  + System.lineSeparator());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCredentialPluginThatNeverAnswersIsGivenUpOnAtTheTimeout() throws Exception {
    // a plugin waiting for a login that never comes runs while Fabric8 reads the kubeconfig
    Path plugin = home.resolve("login-prompt");
    Path pluginPid = home.resolve("login-prompt.pid");
    Files.writeString(plugin, "#!/bin/sh\necho $$ > '%s'\nexec sleep 20\n".formatted(pluginPid));
    Path waiting = kubeconfigWithPlugin(plugin, "[]");
    long start = System.nanoTime();

    Result result = report("ar-tp2", "--kubeconfig", waiting.toString(), "--timeout", "2");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "gpucomm report: the cluster's configuration was not read within 2 s (--timeout):"
                + " does a kubeconfig credential plugin (user.exec) wait for input?"
                + System.lineSeparator());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    Optional<ProcessHandle> left =
        ProcessHandle.of(Long.parseLong(Files.readString(pluginPid).strip()));
    left.ifPresent(process -> process.onExit().orTimeout(10, TimeUnit.SECONDS).join());
    assertThat(left.filter(ProcessHandle::isAlive))
        .as("the plugin given up on is stopped")
        .isEmpty();
  }

  @Test
  void aTimeoutOutsideOneSecondToAnHourIsAUsageError() {
    Result zero = report("ar-tp2", "--timeout", "0");

    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.err()).startsWith("gpucomm report: --timeout: must be from 1 to 3600 seconds");
  }

  @Test
  void usageErrorsAreOneLineAndExitTwo() {
    assertUsageError(report(), "gpucomm report: name one report directory or job");
    assertUsageError(
        report("ar-tp2", "--format", "pdf"),
        "gpucomm report: --format: 'pdf' is not one of md|json|csv|svg|nccl-tests");
    assertUsageError(
        report("ar-tp2", "--kubeconfig", home.resolve("missing").toString()),
        "gpucomm report: --kubeconfig " + home.resolve("missing") + ": no such file");
    assertUsageError(report("ar-tp2", "-n"), "gpucomm report: -n needs a value");
    assertUsageError(
        report("ar-tp2", "--kubeconfig", kubeconfig.toString(), "--context", "prod"),
        "gpucomm report: " + kubeconfig + ": no context named prod");
  }

  @Test
  void namesThatAreNotKubernetesNamesNeverReachTheApiServersUrls() {
    int before = api.getRequestCount();
    String config = kubeconfig.toString();

    assertUsageError(
        report("a/../../../api/v1/secrets", "--kubeconfig", config),
        "gpucomm report: 'a/../../../api/v1/secrets' is neither a report directory nor a job's"
            + " name (a job's name is lower-case letters, digits and '-', starting with a letter,"
            + " at most 52)");
    assertUsageError(
        report("ar-tp2", "-n", "../../x", "--kubeconfig", config),
        "gpucomm report: -n: '../../x' is not a namespace's name (lower-case letters, digits and"
            + " '-', at most 63)");
    assertUsageError(
        run(
            Map.of("GPUCOMM_NAMESPACE", "kube-system/secrets"),
            "report",
            "ar-tp2",
            "--kubeconfig",
            config),
        "gpucomm report: GPUCOMM_NAMESPACE: 'kube-system/secrets' is not a namespace's name"
            + " (lower-case letters, digits and '-', at most 63)");
    assertThat(api.getRequestCount()).isEqualTo(before);
  }

  @Test
  void aKubeconfigThatIsNotOneIsAUsageErrorNamingTheFileAndThePlace() throws Exception {
    Path notYaml = Files.writeString(home.resolve("broken.yaml"), "clusters: [valid\n");
    Path wrongShape =
        Files.writeString(home.resolve("shape.yaml"), "apiVersion: v1\nclusters: 3\n");

    assertUsageError(
        report("ar-tp2", "--kubeconfig", notYaml.toString()),
        "gpucomm report: "
            + notYaml
            + ": cannot be used (while parsing a flow sequence, at line 2, column 1)");
    assertUsageError(
        report("ar-tp2", "--kubeconfig", wrongShape.toString()),
        "gpucomm report: "
            + wrongShape
            + ": cannot be used (a value of the wrong type, at clusters)");
  }

  @Test
  void anEmptyKubeconfigIsAUsageErrorNamingTheFile() throws Exception {
    for (String empty : new String[] {"", "# nothing yet\n", "---\n"}) {
      Path kubeconfig = Files.writeString(Files.createTempFile(home, "empty", ".yaml"), empty);

      assertUsageError(
          report("ar-tp2", "--kubeconfig", kubeconfig.toString()),
          "gpucomm report: --kubeconfig "
              + kubeconfig
              + ": holds no kubeconfig (no clusters, contexts or users)");
    }
  }

  @Test
  void aClusterServerThatIsNoUrlIsAUsageErrorNamingTheFileBeforeAnyRequest() throws Exception {
    Path kubeconfig = writeKubeconfig("server: \"ht!tp://::bad\"", "token: " + TOKEN);
    int before = api.getRequestCount();

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertUsageError(result, "gpucomm report: --kubeconfig " + kubeconfig + ": cluster server '");
    assertThat(result.err()).contains("is not an API server URL (http:// or https://HOST[:PORT])");
    assertThat(api.getRequestCount()).isEqualTo(before);
  }

  @Test
  void aFileTheKubeconfigNamesMustBeARegularFileNotADeviceToReadForever() throws Exception {
    Path kubeconfig =
        Files.writeString(
            home.resolve("device-ca.yaml"),
            """
            apiVersion: v1
            kind: Config
            current-context: ci
            contexts:
            - name: ci
              context: {cluster: kind, user: ci-bot, namespace: bench}
            clusters:
            - name: kind
              cluster: {server: "%s", certificate-authority: /dev/zero}
            users:
            - name: ci-bot
              user: {token: t}
            """
                .formatted(url));

    Result result = report("ar-tp2", "--kubeconfig", kubeconfig.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .startsWith(
            "gpucomm report: --kubeconfig " + kubeconfig + ": certificate-authority /dev/zero: ")
        .hasLineCount(1);
  }

  @Test
  void aKubeconfigWhoseAliasHoldsItselfIsAUsageErrorNotAStackOverflow() throws Exception {
    Path looping =
        Files.writeString(home.resolve("loop.yaml"), "apiVersion: v1\nclusters: &c [*c]\n");

    assertUsageError(
        report("ar-tp2", "--kubeconfig", looping.toString()),
        "gpucomm report: "
            + looping
            + ": cannot be used (nested too deeply, or an alias inside the value it names)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", " http://h:6443", "HTTPS://h", "ftp://h", "http://"})
  void aGpucommKubeApiThatIsNoUrlIsAUsageErrorBeforeAnyRequest(String value) {
    Result result = run(Map.of("GPUCOMM_KUBE_API", value), "report", "ar-tp2");

    assertUsageError(
        result,
        "gpucomm report: GPUCOMM_KUBE_API: '"
            + value
            + "' is not an API server URL (http:// or https://HOST[:PORT])");
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

  private void putResults(String namespace, String job, Map<String, String> files) {
    putResults(namespace, job, files, null);
  }

  /** CommJob {@code name} in namespace bench, as the API server serves it, with this status. */
  private void givenCommJob(String name, Map<String, Object> status) {
    api.expect()
        .get()
        .withPath("/apis/gpucomm.dev/v1alpha1/namespaces/bench/commjobs/" + name)
        .andReturn(
            200,
            Map.of(
                "apiVersion",
                "gpucomm.dev/v1alpha1",
                "kind",
                "CommJob",
                "metadata",
                Map.of("name", name, "namespace", "bench"),
                "status",
                status))
        .always();
  }

  /** {@code run}: the run rank 0 stamped on the report, or null for none. */
  private void putResults(String namespace, String job, Map<String, String> files, String run) {
    admin
        .configMaps()
        .inNamespace(namespace)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(job + "-results")
                .withAnnotations(run == null ? Map.of() : Map.of(ReportRun.ANNOTATION, run))
                .endMetadata()
                .withData(files)
                .build())
        .create();
  }

  /** A kubeconfig of one context, in namespace bench, with these cluster and user fields. */
  /** A kubeconfig of the mock server whose user's token comes from the script {@code plugin}. */
  private Path kubeconfigWithPlugin(Path plugin, String arguments) throws Exception {
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
    return writeKubeconfig(
        "server: " + url,
        """
        exec:
              apiVersion: client.authentication.k8s.io/v1
              command: %s
              args: %s
              interactiveMode: Never"""
            .formatted(plugin, arguments));
  }

  private Path writeKubeconfig(String clusterFields, String userFields) throws Exception {
    return Files.writeString(
        Files.createTempFile(home, "kubeconfig", ".yaml"),
        """
        apiVersion: v1
        kind: Config
        current-context: bench
        contexts:
        - name: bench
          context: {cluster: gpu, user: bench-user, namespace: bench}
        clusters:
        - name: gpu
          cluster:
            %s
        users:
        - name: bench-user
          user:
            %s
        """
            .formatted(clusterFields, userFields));
  }

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
