package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.ReportRun;
import java.util.Map;

/**
 * Names and labels of the objects the operator creates for one CommJob; the contract with the
 * runtime (design notes: ConfigMaps {@code <job>-spec} and {@code <job>-results}, Service {@code
 * <job>}, pods {@code <job>-<podIndex>}).
 */
public record JobNames(String job) {
  /** Label carrying a pod's index within its job. */
  public static final String POD_INDEX_LABEL = CommJob.GROUP + "/pod-index";

  /**
   * Label carrying which run of its job a pod belongs to: 0, then one more for each restart that
   * spec.failurePolicy made (JobSet's restart-attempt); the same key as the results ConfigMap's
   * stamp of the run its report is of.
   */
  public static final String RESTART_ATTEMPT_LABEL = ReportRun.ANNOTATION;

  /** Annotation on the spec ConfigMap: the CommJob generation whose spec the job runs. */
  public static final String SPEC_GENERATION_ANNOTATION = CommJob.GROUP + "/spec-generation";

  public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
  public static final String MANAGED_BY = "gpucomm-operator";

  public static JobNames of(CommJob job) {
    return new JobNames(job.getMetadata().getName());
  }

  public String specConfigMap() {
    return job + "-spec";
  }

  public String resultsConfigMap() {
    return job + "-results";
  }

  public String service() {
    return job;
  }

  /** ServiceAccount, Role and RoleBinding that let the ranks write the results ConfigMap. */
  public String reporter() {
    return job + "-reporter";
  }

  public String pod(int podIndex) {
    return job + "-" + podIndex;
  }

  /** Labels every object of the job carries. */
  public Map<String, String> labels() {
    return Map.of(CommJob.JOB_LABEL, job, MANAGED_BY_LABEL, MANAGED_BY);
  }
}
