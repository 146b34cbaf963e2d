package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.ReportRun;
import dev.gpucomm.api.v1alpha1.report.BaselineComparison;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportFormatException;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds a job's baseline report (a ConfigMap holding report.json, such as an earlier job's results
 * ConfigMap) and judges the job's report against it by the API's {@link BaselineComparison}.
 */
@ApplicationScoped
public class BaselineComparator {
  private final KubernetesClient client;

  @Inject
  public BaselineComparator(KubernetesClient client) {
    this.client = client;
  }

  public RegressionVerdict compare(String namespace, Baseline baseline, ReportSummary current) {
    String name = baseline.getConfigMapRef();
    ConfigMap configMap = client.configMaps().inNamespace(namespace).withName(name).get();
    if (configMap == null) {
      return new RegressionVerdict(
          ConditionList.UNKNOWN,
          Reasons.BASELINE_NOT_FOUND,
          "baseline ConfigMap %s not found in namespace %s".formatted(name, namespace));
    }
    String json =
        configMap.getData() == null
            ? null
            : configMap.getData().get(CommJobResultsConfigMapDependentResource.REPORT_JSON);
    if (json == null) {
      return new RegressionVerdict(
          ConditionList.UNKNOWN,
          Reasons.BASELINE_UNREADABLE,
          "baseline ConfigMap %s has no report.json".formatted(name));
    }
    Optional<String> ofAnotherRun = ofAnotherRunThanItsJobs(namespace, configMap);
    if (ofAnotherRun.isPresent()) {
      return new RegressionVerdict(
          ConditionList.UNKNOWN, Reasons.BASELINE_UNREADABLE, ofAnotherRun.get());
    }
    ReportSummary reference;
    try {
      reference = ReportSummary.read(json, "baseline ConfigMap " + name + " report.json");
    } catch (ReportFormatException e) {
      return new RegressionVerdict(
          ConditionList.UNKNOWN, Reasons.BASELINE_UNREADABLE, e.getMessage());
    }
    double maxSlowdown =
        Objects.requireNonNullElse(
            baseline.getMaxSlowdownPercent(), CommJobDefaults.MAX_SLOWDOWN_PERCENT);
    return BaselineComparison.verdict(name, maxSlowdown, current, reference);
  }

  /**
   * A job's own results ConfigMap named as the baseline holds that job's report only while the job
   * is at the run its report is stamped with: after spec.failurePolicy restarted the job, until the
   * new run publishes, it may hold the failed run's. Says so then; empty otherwise (an unstamped
   * report, or a ConfigMap no CommJob owns, such as a copy kept as the baseline).
   */
  private Optional<String> ofAnotherRunThanItsJobs(String namespace, ConfigMap configMap) {
    Optional<String> reportRun = ReportRun.stamp(configMap);
    if (reportRun.isEmpty()) {
      return Optional.empty();
    }
    String name = configMap.getMetadata().getName();
    for (OwnerReference owner : configMap.getMetadata().getOwnerReferences()) {
      if (!Objects.requireNonNullElse(owner.getApiVersion(), "").startsWith(CommJob.GROUP + "/")
          || !HasMetadata.getKind(CommJob.class).equals(owner.getKind())) {
        continue;
      }
      CommJob job;
      try {
        job =
            client.resources(CommJob.class).inNamespace(namespace).withName(owner.getName()).get();
      } catch (KubernetesClientException e) {
        return Optional.of(
            "cannot read CommJob %s, whose results ConfigMap %s is the baseline: %s"
                .formatted(
                    owner.getName(),
                    name,
                    CommJobReconciler.rootMessage(e).strip().lines().findFirst().orElse("")));
      }
      if (job == null || !Objects.equals(job.getMetadata().getUid(), owner.getUid())) {
        continue;
      }
      int jobRun = JobRestarts.made(job.getStatus());
      if (!ReportRun.isOf(configMap, jobRun)) {
        return Optional.of(
            "baseline ConfigMap %s holds the report of run %s of CommJob %s, which is at run %d"
                .formatted(name, reportRun.get(), owner.getName(), jobRun));
      }
    }
    return Optional.empty();
  }
}
