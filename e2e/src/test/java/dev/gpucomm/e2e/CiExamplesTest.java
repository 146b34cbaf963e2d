package dev.gpucomm.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CI examples stay usable: the workflow parses and names only files that exist, the script is
 * valid bash and answers usage errors like the CLI does, and the example CommJobs are valid.
 */
class CiExamplesTest {
  private static final Path REPO = E2eSettings.fromSystem().repoRoot();
  private static final Path EXAMPLES = REPO.resolve("examples/ci");
  private static final Pattern REPO_PATH =
      Pattern.compile(
          "(?<![\\w/.-])(?:\\./)?((?:examples|helm|app|api|runtime)/[\\w./-]*[\\w-]|mvnw|gpucomm)(?![\\w/-])");
  private static final Pattern CHART_VALUE = Pattern.compile("--set(?:-string)? \"([\\w.]+)=");
  private static final Pattern ACTION = Pattern.compile("[\\w.-]+/[\\w.-]+(/[\\w./-]+)?@[\\w.-]+");

  @Test
  void theWorkflowParsesAndEachStepUsesAnActionOrRunsACommand() throws IOException {
    JsonNode workflow = yaml(EXAMPLES.resolve("github-actions.yaml"));

    assertThat(workflow.path("name").asText()).isNotBlank();
    assertThat(workflow.has("on")).as("triggers").isTrue();
    assertThat(workflow.path("jobs").size()).isPositive();
    for (JsonNode job : workflow.path("jobs")) {
      assertThat(job.path("runs-on").isMissingNode()).as("runs-on").isFalse();
      for (JsonNode step : job.path("steps")) {
        assertThat(step.has("uses") != step.has("run")).as("step %s", step).isTrue();
        if (step.has("uses")) {
          assertThat(step.path("uses").asText()).matches(ACTION);
        }
      }
    }
  }

  @Test
  void everyRepositoryFileTheWorkflowNamesExists() throws IOException {
    JsonNode workflow = yaml(EXAMPLES.resolve("github-actions.yaml"));
    List<String> named = new ArrayList<>();
    for (JsonNode job : workflow.path("jobs")) {
      for (JsonNode step : job.path("steps")) {
        Matcher matcher = REPO_PATH.matcher(step.path("run").asText(""));
        while (matcher.find()) {
          named.add(matcher.group(1));
        }
      }
    }

    assertThat(named)
        .contains("examples/ci/gpucomm-ci.sh", "examples/ci/allreduce-gate.yaml", "mvnw");
    for (String path : named) {
      assertThat(REPO.resolve(path)).as("named in the workflow").exists();
    }
  }

  @Test
  void theChartValuesTheWorkflowSetsExist() throws IOException {
    JsonNode workflow = yaml(EXAMPLES.resolve("github-actions.yaml"));
    JsonNode values = yaml(REPO.resolve("helm/gpucomm-operator/values.yaml"));
    List<String> keys = new ArrayList<>();
    for (JsonNode job : workflow.path("jobs")) {
      for (JsonNode step : job.path("steps")) {
        Matcher matcher = CHART_VALUE.matcher(step.path("run").asText(""));
        while (matcher.find()) {
          keys.add(matcher.group(1));
        }
      }
    }

    assertThat(keys).contains("image.repository", "runtime.image.tag");
    for (String key : keys) {
      JsonNode node = values;
      for (String part : key.split("\\.")) {
        node = node.path(part);
      }
      assertThat(node.isMissingNode()).as("chart value %s", key).isFalse();
    }
  }

  @Test
  void theScriptIsValidBashAndExecutable() throws Exception {
    Path script = EXAMPLES.resolve("gpucomm-ci.sh");

    assertThat(Files.isExecutable(script)).as("executable").isTrue();
    assertThat(bash("-n", script.toString()).exitCode()).isZero();
    assertThat(Files.isExecutable(REPO.resolve("gpucomm")))
        .as("its default CLI, ./gpucomm")
        .isTrue();
  }

  @Test
  void theScriptAnswersUsageErrorsWithOneLineAndExitTwo() throws Exception {
    Path script = EXAMPLES.resolve("gpucomm-ci.sh");

    Result noJob = bash(script.toString());
    Result missingFile = bash(script.toString(), "-f", "no-such-job.yaml");
    Result help = bash(script.toString(), "--help");

    assertThat(noJob.exitCode()).isEqualTo(2);
    assertThat(noJob.stderr())
        .startsWith("gpucomm-ci.sh: which job? give -f <commjob.yaml>\nusage:");
    assertThat(missingFile.exitCode()).isEqualTo(2);
    assertThat(missingFile.stderr())
        .startsWith("gpucomm-ci.sh: -f no-such-job.yaml: no such file\n");
    assertThat(help.exitCode()).isZero();
    assertThat(help.stdout()).startsWith("usage: gpucomm-ci.sh -f <commjob.yaml>");
  }

  @Test
  void aTimeoutThatIsNoDurationIsAUsageErrorNotAJobThatTimedOut() throws Exception {
    // kubectl wait refuses --timeout=1800 at once, which the script used to read as a timeout
    Result seconds =
        bash(
            EXAMPLES.resolve("gpucomm-ci.sh").toString(),
            "-f",
            EXAMPLES.resolve("allreduce-gate.yaml").toString(),
            "--timeout",
            "1800");

    assertThat(seconds.exitCode()).isEqualTo(2);
    assertThat(seconds.stderr())
        .startsWith(
            "gpucomm-ci.sh: --timeout 1800: not a duration (e.g. 30m, 1h30m, 1800s)\nusage:");
  }

  @Test
  void aReportThatCannotBeSavedFailsTheGateWithItsOwnExitCode(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir, "#!/usr/bin/env bash\necho 'gpucomm report: no cluster' >&2\nexit 2\n", Map.of());

    // gpucomm's 2 would read as the script's "usage error"; the job itself succeeded
    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(6);
    assertThat(result.stderr())
        .contains(
            "gpucomm-ci: CommJob gate-x succeeded, but its report.md could not be saved (gpucomm"
                + " report exited 2)");
  }

  /**
   * kubectl, helm and the CLI stood in by scripts: the job succeeds at once, and the Regressed
   * condition reads as STUB_STATUS / STUB_REASON / STUB_MESSAGE say.
   */
  private static final String STUB_KUBECTL =
      """
      #!/usr/bin/env bash
      args="$*"
      case "$args" in
        "get namespace"*) exit 0 ;;
        *"wait "*"condition=Succeeded"*)
          [ -z "${STUB_WAIT_ERROR:-}" ] || { echo "$STUB_WAIT_ERROR" >&2; exit 1; }
          exit 0 ;;
        *"wait "*"condition=Failed"*)
          [ -z "${STUB_WAIT_ERROR:-}" ] || { echo "$STUB_WAIT_ERROR" >&2; exit 1; }
          sleep 20; exit 1 ;;
        "create --namespace"*"jsonpath={.metadata.name}"*)
          [ -z "${STUB_CREATE_ERROR:-}" ] || { echo "$STUB_CREATE_ERROR" >&2; exit 1; }
          printf gate-x ;;
        *"-o yaml"*) echo "kind: CommJob" ;;
        *"jsonpath={.status.phase}"*)
          [ -z "${STUB_GET_ERROR:-}" ] || { echo "$STUB_GET_ERROR" >&2; exit 1; }
          printf '%s' "${STUB_PHASE:-Succeeded}" ;;
        "describe "* | "get pods "*) ;;
        *"jsonpath={.spec.expect}"*)
          [ -z "${STUB_SPEC_ERROR:-}" ] || { echo "$STUB_SPEC_ERROR" >&2; exit 1; }
          printf '%s' "${STUB_EXPECT:-}" ;;
        *'type=="MeetsExpectations")]}{.status}|{.reason}|{.message}{end}'*)
          printf '%s|%s|%s' "$STUB_MEETS" "$STUB_MEETS_REASON" "$STUB_MEETS_MESSAGE" ;;
        *"jsonpath={.spec.baseline.configMapRef}"*) printf '%s' "${STUB_BASELINE-ar-gate-baseline}" ;;
        *"jsonpath={.status.restarts}"*) printf '%s' "${STUB_RESTARTS:-}" ;;
        *'type=="Restarting")]}{.status}|{.reason}|{.message}{end}'*)
          printf 'False|Restarted|%s' "${STUB_RESTART_MESSAGE:-}" ;;
        *'type=="Regressed")]}{.status}|{.reason}|{.message}{end}'*)
          printf '%s|%s|%s' "$STUB_STATUS" "$STUB_REASON" "$STUB_MESSAGE" ;;
        *'type=="Failed")]}{.status}|{.reason}|{.message}{end}'*)
          [ -z "${STUB_CONDITION_ERROR:-}" ] || { echo "$STUB_CONDITION_ERROR" >&2; exit 1; }
          printf 'True|%s|%s' "${STUB_FAILED_REASON:-}" "${STUB_FAILED_MESSAGE:-}" ;;
        *) echo "stub kubectl: unexpected: $args" >&2; exit 1 ;;
      esac
      """;

  @Test
  void aWaitThatEndsEarlyIsSaidAsSuchNotAsTheJobTimingOut(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_WAIT_ERROR",
                "Error from server (Forbidden): commjobs.gpucomm.dev \"gate-x\" is forbidden:"
                    + " cannot watch",
                "STUB_PHASE",
                "Running"));

    assertThat(result.exitCode()).isEqualTo(6);
    assertThat(result.stderr())
        .contains(
            "gpucomm-ci: waiting for CommJob gate-x failed (phase Running): kubectl wait: Error from"
                + " server (Forbidden)")
        .doesNotContain("timed out");
  }

  @Test
  void aPassAfterRestartsSaysHowManyAndWhy(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_BASELINE",
                "",
                "STUB_RESTARTS",
                "1",
                "STUB_RESTART_MESSAGE",
                "restart 1 of 2 after PodDeleted: pod gate-x-1 (rank 1) was deleted"));

    assertThat(result.exitCode()).as(result.stderr()).isZero();
    assertThat(result.stdout())
        .contains(
            "gpucomm-ci: CommJob gate-x succeeded after 1 restart(s) (spec.failurePolicy); the"
                + " last: restart 1 of 2 after PodDeleted: pod gate-x-1 (rank 1) was deleted");
  }

  @Test
  void aFailedJobIsSaidWithItsReasonAndMessage(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_PHASE",
                "Failed",
                "STUB_FAILED_REASON",
                "RankFailed",
                "STUB_FAILED_MESSAGE",
                "pod gate-x-1 (rank 1) failed: exit code 1: rank 1 failed: a | b"));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.stderr())
        .contains(
            "gpucomm-ci: CommJob gate-x failed: RankFailed: pod gate-x-1 (rank 1) failed: exit code"
                + " 1: rank 1 failed: a | b");
  }

  @Test
  void aJobDeletedBeforeItsResultWasReadIsSaidToBeGone(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_GET_ERROR",
                "Error from server (NotFound): commjobs.gpucomm.dev \"gate-x\" not found"));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.stderr())
        .contains(
            "gpucomm-ci: CommJob gate-x no longer exists: deleted before its result was read");
  }

  @Test
  void aReadThatFailsAfterTheJobSucceededStopsTheGateInsteadOfPassingIt(@TempDir Path dir)
      throws Exception {
    // were the failed read taken for "no spec.expect, no spec.baseline", the gate would pass
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_SPEC_ERROR",
                "Unable to connect to the server: dial tcp: i/o timeout",
                "STUB_BASELINE",
                ""));

    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(6);
    assertThat(result.stdout()).doesNotContain("no performance gate");
    assertThat(result.stderr()).contains("gpucomm-ci: could not go on:");
  }

  @Test
  void aFailedJobWhoseReasonCannotBeReadIsStillAFailedJob(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of(
                "STUB_PHASE",
                "Failed",
                "STUB_CONDITION_ERROR",
                "Error from server (NotFound): commjobs.gpucomm.dev \"gate-x\" not found"));

    // the job failed: a pipeline that retried it as the gate's failure would run it again
    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(1);
    assertThat(result.stderr())
        .contains("gpucomm-ci: CommJob gate-x failed: no reason: no message");
  }

  @Test
  void aJobThatCannotBeReadIsTheGatesFailureAndOneItCanRetry(@TempDir Path dir) throws Exception {
    Result result =
        runGate(
            dir,
            "#!/usr/bin/env bash\n",
            Map.of("STUB_GET_ERROR", "Unable to connect to the server: dial tcp: i/o timeout"));

    assertThat(result.exitCode()).isEqualTo(6);
    assertThat(result.stderr())
        .contains(
            "gpucomm-ci: cannot read CommJob gate-x: Unable to connect to the server: dial tcp:"
                + " i/o timeout");
  }

  @ParameterizedTest(name = "{0}: exit {1}")
  @CsvSource(
      delimiter = ';',
      value = {
        "The CommJob \"gate-x\" is invalid: spec.worldSize: Invalid value: 0; 2",
        "Error from server (BadRequest): error when creating \"gate.yaml\": CommJob in version"
            + " \"v1alpha1\" cannot be handled as a CommJob: strict decoding error: unknown field"
            + " \"spec.wrldSize\"; 2",
        "Error from server (Forbidden): commjobs.gpucomm.dev is forbidden: cannot create; 6"
      })
  void aJobTheApiServerRefusesIsAUsageErrorOnlyWhenTheJobIsWrong(
      String refusal, int exitCode, @TempDir Path dir) throws Exception {
    Result result = runGate(dir, "#!/usr/bin/env bash\n", Map.of("STUB_CREATE_ERROR", refusal));

    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(exitCode);
    assertThat(result.stderr().lines()).singleElement().asString().endsWith(refusal);
  }

  @Test
  void aMissingCliOrANegativeTimeoutIsRefusedBeforeAnyJobIsCreated(@TempDir Path dir)
      throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Files.writeString(bin.resolve("kubectl"), STUB_KUBECTL).toFile().setExecutable(true);
    Map<String, String> env =
        Map.of(
            "PATH",
            bin + ":" + System.getenv("PATH"),
            "GPUCOMM_CLI",
            dir.resolve("no-gpucomm").toString());
    Result noCli =
        bash(
            env,
            EXAMPLES.resolve("gpucomm-ci.sh").toString(),
            "-f",
            EXAMPLES.resolve("allreduce-gate.yaml").toString(),
            "--skip-install");
    Result negative =
        bash(
            EXAMPLES.resolve("gpucomm-ci.sh").toString(),
            "-f",
            EXAMPLES.resolve("allreduce-gate.yaml").toString(),
            "--timeout",
            "-5m");

    assertThat(noCli.exitCode()).isEqualTo(2);
    assertThat(noCli.stderr()).contains("(GPUCOMM_CLI) is not an executable");
    assertThat(negative.exitCode()).isEqualTo(2);
    assertThat(negative.stderr()).startsWith("gpucomm-ci.sh: --timeout -5m: not a duration");
  }

  @ParameterizedTest(name = "Regressed={0} ({1}): exit {3}")
  @CsvSource({
    "False, WithinBaseline, all 8 sizes within 5% of baseline, 0",
    "True, SlowerThanBaseline, 1 of 8 sizes slower than baseline, 3",
    "Unknown, NoCommonSizes, the report and baseline share no measured size, 4",
    "Unknown, MissingSizes, 3 of the baseline's sizes were not measured, 4"
  })
  void theGatePassesOnlyOnAVerdictOfNoRegression(
      String status, String reason, String message, int exitCode, @TempDir Path dir)
      throws Exception {
    Map<String, String> stubbed =
        Map.of(
            "STUB_STATUS",
            status,
            "STUB_REASON",
            reason,
            "STUB_MESSAGE",
            message,
            "STUB_EXPECT",
            "[rules]",
            "STUB_MEETS",
            "True",
            "STUB_MEETS_REASON",
            "AllExpectationsMet",
            "STUB_MEETS_MESSAGE",
            "all 1 rules met");

    Result result = runGate(dir, "#!/usr/bin/env bash\n", stubbed);

    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(exitCode);
    assertThat(result.stdout() + result.stderr()).contains(message);
  }

  @ParameterizedTest(name = "MeetsExpectations={0} ({1}): exit {3}")
  @CsvSource({
    "True, AllExpectationsMet, all 1 rules met, 0",
    "False, ExpectationsNotMet, 1 of 1 rules not met: spec.expect[0] (allreduce 32Mi), 5",
    "Unknown, ExpectationNotMeasured, spec.expect[0] (allreduce 32Mi): not measured, 5"
  })
  void theGateFailsAJobBelowItsFloorsWithoutABaseline(
      String status, String reason, String message, int exitCode, @TempDir Path dir)
      throws Exception {
    Map<String, String> stubbed =
        Map.of(
            "STUB_EXPECT",
            "[rules]",
            "STUB_MEETS",
            status,
            "STUB_MEETS_REASON",
            reason,
            "STUB_MEETS_MESSAGE",
            message,
            "STUB_BASELINE",
            "");

    Result result = runGate(dir, "#!/usr/bin/env bash\n", stubbed);

    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(exitCode);
    assertThat(result.stdout() + result.stderr()).contains(message);
  }

  /**
   * Runs the gate on the example job with kubectl and helm stood in by scripts ({@link
   * #STUB_KUBECTL}, reading {@code stubbed}) and the CLI by {@code gpucommStub}.
   */
  private static Result runGate(Path dir, String gpucommStub, Map<String, String> stubbed)
      throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    for (String tool : List.of("kubectl", "helm", "gpucomm")) {
      String text =
          switch (tool) {
            case "kubectl" -> STUB_KUBECTL;
            case "gpucomm" -> gpucommStub;
            default -> "#!/usr/bin/env bash\n";
          };
      Files.writeString(bin.resolve(tool), text).toFile().setExecutable(true);
    }
    Map<String, String> env = new HashMap<>(stubbed);
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("GPUCOMM_CLI", bin.resolve("gpucomm").toString());
    return bash(
        env,
        EXAMPLES.resolve("gpucomm-ci.sh").toString(),
        "-f",
        EXAMPLES.resolve("allreduce-gate.yaml").toString(),
        "--skip-install",
        "--artifacts",
        dir.resolve("artifacts").toString());
  }

  @Test
  void theExampleJobsAreCommJobsThatTheGateCanJudge() throws IOException {
    KubernetesSerialization serialization = new KubernetesSerialization();
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      List<Path> jobs =
          files.filter(f -> f.getFileName().toString().startsWith("allreduce-")).toList();
      assertThat(jobs).hasSize(2);
      for (Path file : jobs) {
        CommJob job = serialization.unmarshal(Files.readString(file), CommJob.class);
        assertThat(job.getMetadata().getGenerateName()).as("%s generateName", file).endsWith("-");
        assertThat(job.getSpec().getTtlSecondsAfterFinished())
            .as("%s: a job per pipeline run must not pile up", file)
            .isPositive();
        assertThat(job.getSpec().getWorldSize() % job.getSpec().getRanksPerPod()).isZero();
        assertThat(job.getSpec().getWorkload().getBenchmark()).as("%s benchmark", file).isNotNull();
      }
    }
    CommJob gate =
        serialization.unmarshal(
            Files.readString(EXAMPLES.resolve("allreduce-gate.yaml")), CommJob.class);
    assertThat(gate.getSpec().getBaseline().getConfigMapRef()).isNotBlank();
    assertThat(gate.getSpec().getExpect()).as("acceptance floors").isNotEmpty();
  }

  private static JsonNode yaml(Path file) throws IOException {
    return new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
  }

  private record Result(int exitCode, String stdout, String stderr) {}

  private static Result bash(String... args) throws Exception {
    return bash(Map.of(), args);
  }

  private static Result bash(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile("bash", ".out");
    Path err = Files.createTempFile("bash", ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(REPO.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("bash finished").isTrue();
    Result result =
        new Result(
            process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    return result;
  }
}
