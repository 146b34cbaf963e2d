package dev.gpucomm.operator;

import static dev.gpucomm.api.v1alpha1.report.TestReports.timing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobStatus;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import dev.gpucomm.api.v1alpha1.report.TestReports;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A job's own results ConfigMap as another job's baseline, across the first job's restarts. */
class BaselineComparatorTest {
  private static final String NAMESPACE = "ml";

  private StandaloneApiServer cluster;
  private BaselineComparator comparator;

  @BeforeEach
  void startApiServer() {
    cluster = StandaloneApiServer.start();
    comparator = new BaselineComparator(cluster.client);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void theResultsOfAJobThatRestartedSinceItsReportAreNotItsBaseline() {
    CommJob nightly = givenJobAtRun("nightly", 1);
    givenResultsOf(nightly, "0", 5.0);

    RegressionVerdict verdict = comparator.compare(NAMESPACE, baseline(), reportAt(5.1));

    assertThat(verdict.status()).isEqualTo(ConditionList.UNKNOWN);
    assertThat(verdict.reason()).isEqualTo(Reasons.BASELINE_UNREADABLE);
    assertThat(verdict.message())
        .isEqualTo(
            "baseline ConfigMap nightly-results holds the report of run 0 of CommJob nightly,"
                + " which is at run 1");
  }

  @Test
  void theResultsOfAJobsCurrentRunAreItsBaseline() {
    CommJob nightly = givenJobAtRun("nightly", 1);
    givenResultsOf(nightly, "1", 5.0);

    RegressionVerdict verdict = comparator.compare(NAMESPACE, baseline(), reportAt(5.1));

    assertThat(verdict.status()).isEqualTo(ConditionList.FALSE);
    assertThat(verdict.reason()).isEqualTo(Reasons.WITHIN_BASELINE);
  }

  @Test
  void aBaselineWhoseJobCannotBeReadIsNoVerdictYetNotAReconcileError() {
    CommJob nightly = givenJobAtRun("nightly", 1);
    givenResultsOf(nightly, "1", 5.0);
    cluster
        .server
        .expect()
        .get()
        .withPath("/apis/gpucomm.dev/v1alpha1/namespaces/ml/commjobs/nightly")
        .andReturn(
            403,
            "{\"kind\":\"Status\",\"code\":403,\"message\":\"commjobs \\\"nightly\\\" is"
                + " forbidden\"}")
        .always();

    RegressionVerdict verdict = comparator.compare(NAMESPACE, baseline(), reportAt(5.1));

    assertThat(verdict.status()).isEqualTo(ConditionList.UNKNOWN);
    assertThat(verdict.reason()).isEqualTo(Reasons.BASELINE_UNREADABLE);
    assertThat(verdict.message())
        .isEqualTo(
            "cannot read CommJob nightly, whose results ConfigMap nightly-results is the baseline:"
                + " commjobs \"nightly\" is forbidden");
  }

  @Test
  void anUnstampedReportIsComparedAsBefore() {
    CommJob nightly = givenJobAtRun("nightly", 1);
    givenResultsOf(nightly, null, 5.0);

    RegressionVerdict verdict = comparator.compare(NAMESPACE, baseline(), reportAt(6.0));

    assertThat(verdict.status()).isEqualTo(ConditionList.TRUE);
    assertThat(verdict.reason()).isEqualTo(Reasons.SLOWER_THAN_BASELINE);
  }

  private CommJob givenJobAtRun(String name, int restarts) {
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
    CommJob created = cluster.client.resource(job).create();
    CommJobStatus status = new CommJobStatus();
    status.setRestarts(restarts);
    created.setStatus(status);
    return cluster.client.resource(created).updateStatus();
  }

  /** {@code run}: the run rank 0 stamped on the report, or null for none. */
  private void givenResultsOf(CommJob job, String run, double micros) {
    cluster
        .client
        .configMaps()
        .inNamespace(NAMESPACE)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(job.getMetadata().getName() + "-results")
                .withAnnotations(run == null ? Map.of() : Map.of(ReportRun.ANNOTATION, run))
                .addNewOwnerReference()
                .withApiVersion(CommJob.API_VERSION)
                .withKind("CommJob")
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withData(Map.of("report.json", halfMiBAt(micros).json()))
                .build())
        .create();
  }

  private static Baseline baseline() {
    Baseline baseline = new Baseline();
    baseline.setConfigMapRef("nightly-results");
    baseline.setMaxSlowdownPercent(5.0);
    return baseline;
  }

  private static ReportSummary reportAt(double micros) {
    return ReportSummary.read(halfMiBAt(micros).json(), "this job's report.json");
  }

  private static TestReports halfMiBAt(double micros) {
    return TestReports.allreduce("nightly")
        .size(524288, 32, "oneshot", timing("oneshot", 6.0, micros, 40.0));
  }
}
