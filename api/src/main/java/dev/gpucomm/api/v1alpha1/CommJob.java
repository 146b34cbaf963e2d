package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.regex.Pattern;

/** A GPU communication job: a benchmark sweep, a host-IR program or a tuning sweep over ranks. */
@ValidationRule(
    value = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message =
        "metadata.name must be a DNS-1035 label: lower-case letters, digits and '-', starting"
            + " with a letter and ending with a letter or digit",
    reason = "FieldValueInvalid")
@ValidationRule(
    value = "size(self.metadata.name) <= " + CommJob.MAX_NAME_LENGTH,
    message =
        "metadata.name must be at most "
            + CommJob.MAX_NAME_LENGTH
            + " characters (the pods and ConfigMaps named after it"
            + " must stay DNS labels)",
    // The API server takes only FieldValueInvalid, Forbidden, Required and Duplicate as a rule's
    // reason, and refuses the whole CRD over any other.
    reason = "FieldValueInvalid")
@Group(CommJob.GROUP)
@Version(CommJob.VERSION)
@Kind("CommJob")
@Plural("commjobs")
@Singular("commjob")
// "cj" is CronJob's short name, which kubectl resolves first.
@ShortNames("gcj")
@Categories("gpucomm")
@AdditionalPrinterColumn(
    name = "Phase",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "World",
    jsonPath = ".spec.worldSize",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Best",
    jsonPath = ".status.best",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Regressed",
    jsonPath = ".status.conditions[?(@.type==\"Regressed\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Restarts",
    jsonPath = ".status.restarts",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class CommJob extends CustomResource<CommJobSpec, CommJobStatus> implements Namespaced {
  public static final String GROUP = "gpucomm.dev";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** What {@code kubectl explain commjob} says of the resource. */
  public static final String DESCRIPTION =
      "A GPU communication job: an all-reduce (or other collective) benchmark sweep, a host-IR"
          + " program or a tuning sweep, run as one pod per node with one rank per GPU; its"
          + " results and verdicts land in status.";

  /**
   * The columns of {@code kubectl get commjobs}, in order. The CRD generator sorts them by JSON
   * path; the build puts them back in this order.
   */
  public static final List<String> PRINTER_COLUMNS =
      List.of("Phase", "World", "Best", "Regressed", "Restarts", "Age");

  /** Label put on every object the operator creates for a job; its value is the job's name. */
  public static final String JOB_LABEL = GROUP + "/job";

  /**
   * The longest job name: the objects named after it (pods {@code <job>-<n>}, ConfigMaps {@code
   * <job>-results}, {@code <job>-reporter}) stay DNS labels. The operator and the ranks both check
   * it.
   */
  public static final int MAX_NAME_LENGTH = 52;

  /**
   * The form of a job's name: a DNS-1035 label, since it also names the job's headless Service and
   * is its pods' subdomain (so it starts with a letter).
   */
  public static final Pattern NAME_FORM = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");

  /**
   * Whether {@code name} can name a job: of {@link #NAME_FORM}, at most {@link #MAX_NAME_LENGTH}.
   */
  public static boolean isJobName(String name) {
    return name.length() <= MAX_NAME_LENGTH && NAME_FORM.matcher(name).matches();
  }

  /** Kernels move 16-byte vectors: every message is a whole number of them. */
  public static final int MESSAGE_ALIGNMENT_BYTES = 16;

  @Override
  @JsonPropertyDescription("What the job runs, on how many ranks, and how its results are judged.")
  public CommJobSpec getSpec() {
    return super.getSpec();
  }

  @Override
  @JsonPropertyDescription(
      "Observed state of the job, written by the operator: phase, conditions and results.")
  public CommJobStatus getStatus() {
    return super.getStatus();
  }
}
