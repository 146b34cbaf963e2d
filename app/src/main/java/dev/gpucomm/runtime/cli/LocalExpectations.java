package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Expectation;
import dev.gpucomm.api.v1alpha1.report.ExpectationCheck;
import dev.gpucomm.api.v1alpha1.report.ExpectationVerdict;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportJson;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import dev.gpucomm.runtime.report.ReportFiles;
import dev.gpucomm.runtime.spec.LoadedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * spec.expect on this host: the verdict the operator puts in the MeetsExpectations condition,
 * decided by the same {@link ExpectationCheck} on the report the run just wrote, so that a job used
 * as a gate in a cluster gates the same way when run locally.
 */
final class LocalExpectations {
  /** The exit code of a finished run whose spec.expect does not hold (gpucomm-ci.sh's too). */
  static final int NOT_MET_EXIT_CODE = 5;

  private LocalExpectations() {}

  /**
   * Prints the verdict of the job's spec.expect on the report in {@code reportDir}; returns 0 when
   * every rule holds (or there are none), else {@link #NOT_MET_EXIT_CODE}: a rule whose figure was
   * not measured passes no more than in the cluster.
   */
  static int judge(String command, LoadedJob job, Path reportDir, CliContext context) {
    List<Expectation> rules = job.job().getSpec().getExpect();
    if (rules == null || rules.isEmpty()) {
      return 0;
    }
    Path reportJson = reportDir.resolve(ReportFiles.JSON);
    if (!Files.isRegularFile(reportJson)) {
      context.err().println("gpucomm " + command + ": spec.expect: the run wrote no " + reportJson);
      return NOT_MET_EXIT_CODE;
    }
    ReportSummary report = ReportSummary.of(ReportJson.read(reportJson));
    ExpectationVerdict verdict = ExpectationCheck.verdict(rules, report);
    if (RegressionVerdict.TRUE.equals(verdict.status())) {
      context.out().println("Expectations: " + verdict.message());
      return 0;
    }
    context.err().println("gpucomm " + command + ": spec.expect: " + verdict.message());
    return NOT_MET_EXIT_CODE;
  }
}
