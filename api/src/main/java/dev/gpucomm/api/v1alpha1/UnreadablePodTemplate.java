package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * What a CommJob's spec.template reads as when a value in it cannot be read at all, such as a
 * resource quantity of "1e5x" (the CRD types quantities as int-or-string, so the API server stores
 * it): an empty template that says why, for the validator to refuse the job. Failing to read the
 * job instead would fail every list and watch of CommJobs that holds it, so that no job is
 * reconciled.
 *
 * <p>Where and why are kept as the template's only properties, so that they survive the copies an
 * operator framework makes by writing a resource out and reading it back. The API server prunes
 * such fields, so they never reach a stored object.
 */
public final class UnreadablePodTemplate extends PodTemplateSpec {
  static final String REASON = "gpucomm.dev/unreadable";
  static final String FIELD = "gpucomm.dev/unreadable-at";

  /**
   * @param field the path of the value below the template ("spec.containers[0]..."), or ""
   * @param reason what the reader said of it
   */
  UnreadablePodTemplate(String field, String reason) {
    setAdditionalProperty(FIELD, field);
    setAdditionalProperty(REASON, reason);
  }

  /** "TEMPLATE.spec.containers[0].resources.limits.memory: cannot be read (REASON)". */
  public String problemUnder(String template) {
    String field = String.valueOf(getAdditionalProperties().getOrDefault(FIELD, ""));
    return template
        + (field.isEmpty() ? "" : "." + field)
        + ": cannot be read ("
        + getAdditionalProperties().get(REASON)
        + ")";
  }
}
