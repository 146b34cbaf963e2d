package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Which run of a job a results ConfigMap's report is of: rank 0 stamps the restart attempt of its
 * pods ({@code GPUCOMM_RESTART_ATTEMPT}) on the ConfigMap with the report, so that a failed run's
 * late report is never taken for the report of the run that replaced it.
 */
public final class ReportRun {
  /** The annotation of the results ConfigMap, and the label of the job's pods, holding the run. */
  public static final String ANNOTATION = CommJob.GROUP + "/restart-attempt";

  private ReportRun() {}

  /**
   * The run {@code results} is stamped with; empty when it is not stamped (a report of a runtime
   * that did not stamp, or of pods started by hand) or the stamp is not a run's number.
   */
  public static OptionalInt of(HasMetadata results) {
    Map<String, String> annotations = results.getMetadata().getAnnotations();
    String stamp = annotations == null ? null : annotations.get(ANNOTATION);
    if (stamp == null || !stamp.matches("[0-9]{1,9}")) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(Integer.parseInt(stamp));
  }
}
