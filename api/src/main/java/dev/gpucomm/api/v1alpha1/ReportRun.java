package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Which run of a job a results ConfigMap's report is of: rank 0 stamps the restart attempt of its
 * pods ({@code GPUCOMM_RESTART_ATTEMPT}) on the ConfigMap with the report, so that a failed run's
 * late report is never taken for the report of the run that replaced it.
 */
public final class ReportRun {
  /** The annotation of the results ConfigMap, and the label of the job's pods, holding the run. */
  public static final String ANNOTATION = CommJob.GROUP + "/restart-attempt";

  private static final String RUN_NUMBER = "0|[1-9][0-9]{0,8}";

  private ReportRun() {}

  /**
   * The stamp of {@code results} as written; empty when it is not stamped (a report of a runtime
   * that did not stamp, or of pods started by hand).
   */
  public static Optional<String> stamp(HasMetadata results) {
    Map<String, String> annotations = results.getMetadata().getAnnotations();
    return Optional.ofNullable(annotations == null ? null : annotations.get(ANNOTATION));
  }

  /** The run {@code results} is stamped with, when the stamp is a run's number as rank 0 writes. */
  public static OptionalInt of(HasMetadata results) {
    return stamp(results)
        .filter(stamp -> stamp.matches(RUN_NUMBER))
        .map(stamp -> OptionalInt.of(Integer.parseInt(stamp)))
        .orElse(OptionalInt.empty());
  }

  /**
   * Whether the report of {@code results} may be taken for run {@code run}'s: it is stamped with
   * that run, or not stamped at all. A stamp that is no run's number is another run's.
   */
  public static boolean isOf(HasMetadata results, int run) {
    return stamp(results).isEmpty() || of(results).equals(OptionalInt.of(run));
  }
}
