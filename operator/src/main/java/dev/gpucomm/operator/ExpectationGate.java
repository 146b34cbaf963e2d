package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Expectation;
import dev.gpucomm.api.v1alpha1.report.ExpectationCheck;
import dev.gpucomm.api.v1alpha1.report.ExpectationVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Optional;

/**
 * The MeetsExpectations condition: Unknown until the job succeeded with a readable report, then
 * decided once by the API's {@link ExpectationCheck} and kept.
 */
final class ExpectationGate {
  private ExpectationGate() {}

  static ExpectationVerdict verdict(
      List<Expectation> rules,
      List<Condition> before,
      JobOutcome outcome,
      Optional<ReportSummary> report,
      String reportProblem) {
    Optional<Condition> decided =
        ConditionList.find(before, Reasons.MEETS_EXPECTATIONS)
            .filter(
                c ->
                    ConditionList.TRUE.equals(c.getStatus())
                        || ConditionList.FALSE.equals(c.getStatus()));
    if (decided.isPresent()) {
      Condition c = decided.get();
      return new ExpectationVerdict(c.getStatus(), c.getReason(), c.getMessage());
    }
    if (reportProblem != null) {
      return new ExpectationVerdict(
          ConditionList.UNKNOWN, Reasons.REPORT_UNREADABLE, reportProblem);
    }
    if (report.isEmpty() || !(outcome instanceof JobOutcome.Succeeded)) {
      String message =
          outcome instanceof JobOutcome.Failed
              ? "the job failed without figures to check"
              : "no figures to check yet";
      return new ExpectationVerdict(ConditionList.UNKNOWN, Reasons.AWAITING_REPORT, message);
    }
    return ExpectationCheck.verdict(rules, report.get());
  }
}
