package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.ReportRun;
import java.util.HashMap;
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

  /**
   * Label carrying the UID of the job an object belongs to: a job deleted and created again under
   * its name labels its objects with its new UID (JobSet's jobset-uid), so that a selector, a log
   * query or a dashboard can tell the two runs' pods apart.
   */
  public static final String JOB_UID_LABEL = CommJob.GROUP + "/job-uid";

  /**
   * Kubernetes' recommended label of the application an object is part of. Not its instance label:
   * Argo CD tracks what an Application owns by app.kubernetes.io/instance, so rank pods that bore
   * their job's name there would be taken for an Application's of that name, and pruned.
   */
  public static final String NAME_LABEL = "app.kubernetes.io/name";

  public static final String NAME = "gpucomm";
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

  /** Labels every object of {@code job} carries: the job's name and UID, and what made it. */
  public static Map<String, String> labelsOf(CommJob job) {
    String name = job.getMetadata().getName();
    Map<String, String> labels = new HashMap<>();
    labels.put(CommJob.JOB_LABEL, name);
    labels.put(NAME_LABEL, NAME);
    labels.put(MANAGED_BY_LABEL, MANAGED_BY);
    if (job.getMetadata().getUid() != null) {
      labels.put(JOB_UID_LABEL, job.getMetadata().getUid());
    }
    return labels;
  }
}
