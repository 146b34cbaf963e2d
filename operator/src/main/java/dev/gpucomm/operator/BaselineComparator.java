package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.report.BaselineComparison;
import dev.gpucomm.api.v1alpha1.report.RegressionVerdict;
import dev.gpucomm.api.v1alpha1.report.ReportFormatException;
import dev.gpucomm.api.v1alpha1.report.ReportSummary;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Objects;

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
}
