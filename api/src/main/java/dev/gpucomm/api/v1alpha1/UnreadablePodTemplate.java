package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * What a CommJob's spec.template reads as when a value in it cannot be read at all, such as a
 * resource quantity of "" (the CRD types quantities as int-or-string, so the API server stores it):
 * an empty template that says why, for the validator to refuse the job. Failing to read the job
 * instead would fail every list and watch of CommJobs that holds it, so that no job is reconciled.
 *
 * <p>The reason is kept as the template's one property, {@value #PROBLEM}, so that it survives the
 * copies an operator framework makes by writing a resource out and reading it back. The API server
 * prunes such a field, so it never reaches a stored object.
 */
public final class UnreadablePodTemplate extends PodTemplateSpec {
  static final String PROBLEM = "gpucomm.dev/unreadable";

  UnreadablePodTemplate(String problem) {
    setAdditionalProperty(PROBLEM, problem);
  }

  /** Where in the template the value is, and what is wrong with it. */
  public String problem() {
    return String.valueOf(getAdditionalProperties().get(PROBLEM));
  }
}
